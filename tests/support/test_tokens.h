// Bearer tokens of test tenants, made up here so that nothing secret is checked in, and the
// token table a test server authenticates them with.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "server/transport/auth.h"

namespace arrayhub::testing {

// The token of a test tenant.
inline std::string TokenOf(const std::string& tenant) { return tenant + "-token-for-tests"; }

// A token table for the given tenants.
inline std::shared_ptr<const TokenTable> TokensFor(const std::vector<std::string>& tenants) {
  std::string text;
  for (const std::string& tenant : tenants) {
    text += tenant + " " + ToHex(Sha256(TokenOf(tenant))) + "\n";
  }
  auto table = TokenTable::Parse(text, "test tokens");
  EXPECT_TRUE(table.ok()) << table.status();
  return std::make_shared<const TokenTable>(*std::move(table));
}

}  // namespace arrayhub::testing
