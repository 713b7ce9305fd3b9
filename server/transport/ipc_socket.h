// The daemon's Unix socket for file descriptors, which gRPC cannot carry, in both directions
// between it and clients on its host; it carries nothing else. A client sends one line:
//   "<pool ticket>\n" (a ticket from ExportIpc): it gets back "OK <pool id>\n" with the pool's
//     descriptor attached (SCM_RIGHTS), for CUDA IPC (docs/ipc.md);
//   "REGION\n" with the descriptor of a shared-memory object attached: it gets back
//     "OK <ticket>\n", the ticket RegisterSharedMemory names (docs/operations.md);
//   "BATCHES <ticket>\n" (a ticket from OpenBatchLane): the connection becomes that session's
//     batch lane (batch_lanes.h), whose thread answers "OK <proof>\n" and serves it from then on;
// or "ERROR <message>\n" for any of them. Connections are served together by one poll loop, each
// given a deadline for its line, and a user (SO_PEERCRED) may hold only a few at once, so
// that idle connections delay nobody else.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "server/core/engine.h"

namespace arrayhub {

struct IpcSocketHandlers {
  // Uses up a pool ticket and answers a new descriptor of its pool.
  std::function<absl::StatusOr<PoolDescriptor>(std::string_view ticket)> redeem_pool;
  // Keeps the descriptor that a process of user `sender` attached to "REGION" and answers
  // its ticket.
  std::function<absl::StatusOr<std::string>(uid_t sender, OwnedFd fd)> park_region;
  // Uses up a batch lane ticket and takes `connection` (left empty) for the lane; an error
  // leaves it where it was, to be answered "ERROR <message>". Unset: no lanes.
  std::function<absl::Status(std::string_view ticket, OwnedFd& connection)> open_batch_lane;
};

struct IpcSocketOptions {
  // How long a connection may take to send its line.
  std::chrono::milliseconds request_timeout{1000};
  // Connections open at once, of one user and of all.
  int max_connections_per_user = 16;
  int max_connections = 256;
};

class IpcSocket {
 public:
  // Listens on `path`: a filesystem path, "@name" for Linux's abstract namespace, or "" for a
  // fresh abstract name, and answers on a thread of this object's.
  static absl::StatusOr<std::unique_ptr<IpcSocket>> Start(std::string path,
                                                          IpcSocketHandlers handlers,
                                                          IpcSocketOptions options = {});
  // Stops answering; removes a filesystem path it made.
  ~IpcSocket();
  IpcSocket(const IpcSocket&) = delete;
  IpcSocket& operator=(const IpcSocket&) = delete;

  // Where clients connect, as Start took it ("@..." for an abstract name).
  const std::string& path() const { return path_; }

 private:
  struct Connection;

  IpcSocket(std::string path, int listener, int stop_event, IpcSocketHandlers handlers,
            IpcSocketOptions options);
  void Serve();
  // Takes the connections waiting on the listener; false when the process is out of
  // descriptors (the listener is then left alone for a moment).
  bool AcceptAll();
  // Reads what `connection` sent; true once it is answered (or gone) and may be closed.
  bool Receive(Connection& connection);
  // Answers a complete request line.
  void Answer(Connection& connection, std::string_view line);
  void Close(std::list<Connection>::iterator connection);

  const std::string path_;
  const int listener_;
  const int stop_event_;  // An eventfd that wakes Serve to end.
  const IpcSocketHandlers handlers_;
  const IpcSocketOptions options_;
  // Used by the serving thread only.
  std::list<Connection> connections_;
  absl::flat_hash_map<uid_t, int> per_user_;
  std::thread thread_;
};

}  // namespace arrayhub
