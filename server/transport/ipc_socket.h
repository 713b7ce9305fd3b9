// The Unix socket through which a client on the server's host fetches a memory pool's file
// descriptor for CUDA IPC (docs/ipc.md). gRPC cannot carry descriptors; this socket carries
// nothing else. A client sends a pool ticket from ExportIpc and a newline; it gets back
// "OK <pool id>\n" with the descriptor attached (SCM_RIGHTS), or "ERROR <message>\n".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/status/statusor.h"
#include "server/core/engine.h"

namespace arrayhub {

class IpcSocket {
 public:
  using Redeem = std::function<absl::StatusOr<PoolDescriptor>(std::string_view ticket)>;

  // Listens on `path`: a filesystem path, "@name" for Linux's abstract namespace, or "" for a
  // fresh abstract name. Connections are answered one at a time on a thread of this object's;
  // each gets a second to send its ticket.
  static absl::StatusOr<std::unique_ptr<IpcSocket>> Start(std::string path, Redeem redeem);
  // Stops answering; removes a filesystem path it made.
  ~IpcSocket();
  IpcSocket(const IpcSocket&) = delete;
  IpcSocket& operator=(const IpcSocket&) = delete;

  // Where clients connect, as Start took it ("@..." for an abstract name).
  const std::string& path() const { return path_; }

 private:
  IpcSocket(std::string path, int listener, int stop_event, Redeem redeem);
  void Serve();
  void Answer(int connection);

  const std::string path_;
  const int listener_;
  const int stop_event_;  // An eventfd that wakes Serve to end.
  const Redeem redeem_;
  std::thread thread_;
};

}  // namespace arrayhub
