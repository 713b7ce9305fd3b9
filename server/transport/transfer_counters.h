// Bytes moved daemon to daemon and through clients since the daemon started: GetServerInfo's
// `transfers` (proto/arrayhub/v1/peer.proto, TransferStats).
#pragma once

#include <atomic>
#include <cstdint>

#include "arrayhub/v1/peer.pb.h"

namespace arrayhub {

struct TransferCounters {
  std::atomic<int64_t> capabilities_issued{0};
  std::atomic<int64_t> pulled_arrays{0};
  std::atomic<int64_t> pulled_bytes{0};
  std::atomic<int64_t> served_bytes{0};
  std::atomic<int64_t> shared_pulls{0};
  std::atomic<int64_t> client_upload_bytes{0};
  std::atomic<int64_t> client_download_bytes{0};

  void Fill(v1::TransferStats* stats) const {
    stats->set_capabilities_issued(capabilities_issued.load());
    stats->set_pulled_arrays(pulled_arrays.load());
    stats->set_pulled_bytes(pulled_bytes.load());
    stats->set_served_bytes(served_bytes.load());
    stats->set_shared_pulls(shared_pulls.load());
    stats->set_client_upload_bytes(client_upload_bytes.load());
    stats->set_client_download_bytes(client_download_bytes.load());
  }
};

}  // namespace arrayhub
