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
  return detail::FromProto(detail::Call(Synced(), &v1::ArrayHub::Stub::Publish, request).array());
}

void Client::Unpublish(const std::string& name) {
  v1::UnpublishRequest request;
  request.set_name(name);
  detail::Call(Synced(), &v1::ArrayHub::Stub::Unpublish, request);
}

Array Client::Attach(const std::string& name, const std::string& owner) {
  v1::AttachRequest request;
  request.set_name(name);
  request.set_owner(owner);
  return Adopt(
      detail::FromProto(detail::Call(Synced(), &v1::ArrayHub::Stub::Attach, request).array()));
}

}  // namespace arrayhub::client
