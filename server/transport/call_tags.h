// Facts about one call that its handler learns and an interceptor reports: today the tenant,
// for the request log. Handlers know the tenant only after reading the credentials, and
// interceptors see no handler state, so the two meet here, keyed by the call's ServerContext.
// An entry exists only while an interceptor holds it open, so recording costs one atomic load
// when nothing reads it (the request log is off above debug level).
#pragma once

#include <grpcpp/server_context.h>

#include <string>
#include <string_view>

namespace arrayhub::call_tags {

// Opened and closed by the interceptor that will read the tags.
void Open(const grpc::ServerContextBase* call);
void Close(const grpc::ServerContextBase* call);

// Recorded by handlers; ignored for calls nobody opened.
void SetTenant(const grpc::ServerContextBase* call, std::string_view tenant);

// The recorded tenant, or "" when the call ended before its credentials were read.
std::string Tenant(const grpc::ServerContextBase* call);

}  // namespace arrayhub::call_tags
