// The queue binding a backend test hands its calls when it binds no queue of its own: a binding
// of the device's default queue (Queues::Bind with no queue), made once per device and thread,
// since a binding serves one thread at a time (work_queue.h).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "server/backend/backend.h"

namespace arrayhub {

inline QueueBinding& TestQueue(Backend& backend) {
  // By device name, never by address: a backend made where a destroyed one was is another
  // device's, or another kind's, whose calls refuse the old binding.
  thread_local std::map<std::string, std::unique_ptr<QueueBinding>> bindings;
  std::unique_ptr<QueueBinding>& binding = bindings[backend.DeviceName()];
  if (binding == nullptr) binding = backend.queues().Bind(nullptr, "test");
  return *binding;
}

}  // namespace arrayhub
