// Publish, Unpublish and Attach.
#include "arrayhub/client.h"
#include "connection.h"
#include "convert.h"

namespace arrayhub::client {

ArrayInfo Client::Publish(const Array& array, const std::string& name,
                          const PublishOptions& options) {
  v1::PublishRequest request;
  request.set_handle(array.handle());
  request.set_name(name);
  for (const std::string& reader : options.readers) request.add_reader_tenants(reader);
  request.set_all_tenants(options.all_tenants);
  request.set_writable(options.writable);
  request.set_durable(options.durable);
  request.set_wait_durable(options.wait);
  return detail::FromProto(detail::Call(Synced(), &v1::ArrayHub::Stub::Publish, request).array());
}

void Client::Unpublish(const std::string& name) {
  v1::UnpublishRequest request;
  request.set_name(name);
  detail::Call(Synced(), &v1::ArrayHub::Stub::Unpublish, request);
}

CheckpointInfo Client::Checkpoint(bool wait) {
  v1::CheckpointRequest request;
  request.set_wait(wait);
  const v1::CheckpointResponse response =
      detail::Call(Synced(), &v1::ArrayHub::Stub::Checkpoint, request);
  return {.publications = response.publications(),
          .bytes = response.bytes(),
          .tenant_disk_bytes = response.tenant_disk_bytes()};
}

Array Client::Attach(const std::string& name, const std::string& owner) {
  v1::AttachRequest request;
  request.set_name(name);
  request.set_owner(owner);
  return Adopt(
      detail::FromProto(detail::Call(Synced(), &v1::ArrayHub::Stub::Attach, request).array()));
}

}  // namespace arrayhub::client
