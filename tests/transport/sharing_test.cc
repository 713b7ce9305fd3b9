// Publish, Attach and Unpublish: who may attach, read-only and writable shares, reference
// counting across sessions and tenants, and who pays.
#include "tests/transport/rpc_fixture.h"

namespace arrayhub::testing {
namespace {

using SharingTest = TenantsTest;

std::string Download(const TenantClient& client, const std::string& handle,
                     grpc::Status* status_out = nullptr) {
  auto context = client.Context();
  v1::DownloadRequest request;
  request.set_handle(handle);
  auto reader = client.stub->Download(context.get(), request);
  std::string data;
  v1::DownloadResponse message;
  while (reader->Read(&message)) data += message.chunk();
  const grpc::Status status = reader->Finish();
  if (status_out != nullptr) *status_out = status;
  EXPECT_TRUE(status_out != nullptr || status.ok()) << status.error_message();
  return data;
}

TEST_F(SharingTest, AReaderAttachesReadsButCannotWrite) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo array = alice.Zeros({4}, v1::DTYPE_INT32);
  v1::PublishRequest request;
  request.set_handle(array.handle());
  request.set_name("lab/weights-v1.2_final");
  request.add_reader_tenants("bob");
  v1::PublishResponse published;
  ASSERT_TRUE(alice.stub->Publish(alice.Context().get(), request, &published).ok());
  EXPECT_EQ(published.array().handle(), array.handle());
  EXPECT_EQ(published.array().name(), "lab/weights-v1.2_final");

  v1::ArrayInfo attached;
  ASSERT_TRUE(bob.Attach("lab/weights-v1.2_final", "alice", &attached).ok());
  EXPECT_NE(attached.handle(), array.handle());
  EXPECT_EQ(attached.owner(), "alice");
  EXPECT_EQ(attached.name(), "lab/weights-v1.2_final");
  EXPECT_FALSE(attached.writable());
  EXPECT_EQ(Download(bob, attached.handle()), std::string(16, '\0'));

  v1::ArrayInfo sum;
  ASSERT_TRUE(bob.AddOne(attached.handle(), "", &sum).ok());  // Reading is fine.
  EXPECT_EQ(sum.owner(), "bob");
  EXPECT_STATUS(bob.AddOne(sum.handle(), attached.handle()), PERMISSION_DENIED,
                "is shared read-only with tenant 'bob'");
  // Alice's own handle stays writable.
  EXPECT_TRUE(alice.AddOne(array.handle(), array.handle()).ok());
  EXPECT_EQ(Download(bob, attached.handle()), std::string("\1\0\0\0\1\0\0\0\1\0\0\0\1\0\0\0", 16));
}

// An upload into an existing array (a striped client's ranges, ndarray.set) writes like any op:
// not through a read-only share, and never into another tenant's array by its handle.
TEST_F(SharingTest, UploadsIntoAShareFollowItsRights) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo array = alice.Zeros({4}, v1::DTYPE_INT32);
  ASSERT_TRUE(alice.Publish(array.handle(), "counts", {"bob"}).ok());
  v1::ArrayInfo attached;
  ASSERT_TRUE(bob.Attach("counts", "alice", &attached).ok());
  auto upload_into = [&](const std::string& target) {
    auto context = bob.Context();
    v1::UploadResponse response;
    auto writer = bob.stub->Upload(context.get(), &response);
    v1::UploadRequest header;
    header.mutable_header()->set_dtype(v1::DTYPE_INT32);
    header.mutable_header()->add_shape(4);
    header.mutable_header()->set_target_handle(target);
    v1::UploadRequest chunk;
    chunk.set_chunk(std::string(16, '\7'));
    writer->Write(header);
    writer->Write(chunk);
    writer->WritesDone();
    return writer->Finish();
  };
  EXPECT_STATUS(upload_into(attached.handle()), PERMISSION_DENIED,
                "is shared read-only with tenant 'bob'");
  EXPECT_STATUS(upload_into(array.handle()), NOT_FOUND, "");  // Alice's own handle.
  EXPECT_EQ(Download(alice, array.handle()), std::string(16, '\0'));
}

TEST_F(SharingTest, ViewsOfAReadOnlyShareAreReadOnlyToo) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  ASSERT_TRUE(alice.Publish(alice.Zeros({2, 3}).handle(), "grid", {"bob"}).ok());
  v1::ArrayInfo attached;
  ASSERT_TRUE(bob.Attach("grid", "alice", &attached).ok());
  v1::ViewRequest transpose;
  transpose.set_handle(attached.handle());
  transpose.mutable_transpose();
  v1::ArrayInfo view;
  ASSERT_TRUE(bob.stub->View(bob.Context().get(), transpose, &view).ok());
  EXPECT_FALSE(view.writable());
  EXPECT_EQ(view.owner(), "alice");
  EXPECT_STATUS(bob.AddOne(view.handle(), view.handle()), PERMISSION_DENIED,
                "is shared read-only with tenant 'bob'");
  v1::SetItemRequest set;
  set.set_handle(view.handle());
  set.mutable_value()->mutable_scalar()->set_int_value(7);
  v1::SetItemResponse response;
  EXPECT_STATUS(bob.stub->SetItem(bob.Context().get(), set, &response), PERMISSION_DENIED,
                "is shared read-only");
}

// A published view's base is the owner's private handle: another tenant sees neither it (on
// the attached handle, its views, or the listing) nor anything that would name it.
TEST_F(SharingTest, ASharedViewNeverShowsTheOwnersHandles) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo array = alice.Zeros({2, 3});
  v1::ViewRequest transpose;
  transpose.set_handle(array.handle());
  transpose.mutable_transpose();
  v1::ArrayInfo alices_view;
  ASSERT_TRUE(alice.stub->View(alice.Context().get(), transpose, &alices_view).ok());
  EXPECT_EQ(alices_view.base_handle(), array.handle());  // Her own, to her.
  ASSERT_TRUE(alice.Publish(alices_view.handle(), "view", {"bob"}).ok());

  v1::ArrayInfo attached;
  ASSERT_TRUE(bob.Attach("view", "alice", &attached).ok());
  EXPECT_EQ(attached.base_handle(), "");
  transpose.set_handle(attached.handle());
  v1::ArrayInfo bobs_view;
  ASSERT_TRUE(bob.stub->View(bob.Context().get(), transpose, &bobs_view).ok());
  EXPECT_EQ(bobs_view.base_handle(), attached.handle());
  v1::ListRequest list;
  list.set_include_shared(true);
  v1::ListResponse listed;
  ASSERT_TRUE(bob.stub->List(bob.Context().get(), list, &listed).ok());
  for (const v1::ArrayInfo& info : listed.arrays()) {
    for (const std::string& hidden : {array.handle(), alices_view.handle()}) {
      EXPECT_NE(info.handle(), hidden);
      EXPECT_NE(info.base_handle(), hidden) << info.name();
    }
  }
  // Alice attaching her own publication still sees her base.
  v1::ArrayInfo own;
  ASSERT_TRUE(alice.Attach("view", "", &own).ok());
  EXPECT_EQ(own.base_handle(), array.handle());
}

TEST_F(SharingTest, AWritableShareLetsReadersWriteInPlace) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo array = alice.Zeros({2}, v1::DTYPE_INT8);
  ASSERT_TRUE(alice
                  .Publish(array.handle(), "scratch", {}, /*all_tenants=*/true,
                           /*writable=*/true)
                  .ok());
  v1::ArrayInfo attached;
  ASSERT_TRUE(bob.Attach("scratch", "alice", &attached).ok());
  EXPECT_TRUE(attached.writable());
  ASSERT_TRUE(bob.AddOne(attached.handle(), attached.handle()).ok());
  EXPECT_EQ(Download(alice, array.handle()), std::string("\1\1", 2));
}

TEST_F(SharingTest, AllTenantsAndOwnNamesAttachWithoutNamingEveryone) {
  const TenantClient alice = Connect("alice");
  const v1::ArrayInfo array = alice.Zeros({3});
  ASSERT_TRUE(alice.Publish(array.handle(), "public", {}, /*all_tenants=*/true).ok());
  EXPECT_TRUE(Connect("carol").Attach("public", "alice").ok());
  // Another session of the same tenant attaches with an empty owner, and may write.
  const TenantClient alice_again = Connect("alice");
  v1::ArrayInfo mine;
  ASSERT_TRUE(alice_again.Attach("public", "", &mine).ok());
  EXPECT_TRUE(mine.writable());
}

TEST_F(SharingTest, DataLivesWhileAnyHolderDoesAndThePublisherPays) {
  TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo array = alice.Zeros({1000}, v1::DTYPE_FLOAT64);
  ASSERT_TRUE(alice.Publish(array.handle(), "kept", {"bob"}).ok());
  // The publisher's session goes; the publication keeps the data.
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(alice.stub->CloseSession(alice.Context().get(), {}, &closed).ok());
  alice = Connect("alice");
  v1::ArrayInfo attached;
  ASSERT_TRUE(bob.Attach("kept", "alice", &attached).ok());
  EXPECT_EQ(alice.Info().tenant_bytes_in_use(), 8000);
  EXPECT_EQ(bob.Info().tenant_bytes_in_use(), 0);

  // Unpublished: bob's handle still holds the data, which alice still pays for.
  v1::UnpublishRequest unpublish;
  unpublish.set_name("kept");
  v1::UnpublishResponse response;
  ASSERT_TRUE(alice.stub->Unpublish(alice.Context().get(), unpublish, &response).ok());
  EXPECT_EQ(bob.Attach("kept", "alice").error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Download(bob, attached.handle()).size(), 8000u);
  EXPECT_EQ(alice.Info().tenant_bytes_in_use(), 8000);

  ASSERT_TRUE(bob.Free(attached.handle()).ok());
  EXPECT_EQ(alice.Info().tenant_bytes_in_use(), 0);
  ExpectNothingLeaked();
}

TEST_F(SharingTest, ListWithIncludeSharedShowsNamesToAttach) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  ASSERT_TRUE(alice.Publish(alice.Zeros({5}).handle(), "listed", {"bob"}).ok());
  v1::ListRequest request;
  request.set_include_shared(true);
  v1::ListResponse response;
  ASSERT_TRUE(bob.stub->List(bob.Context().get(), request, &response).ok());
  ASSERT_EQ(response.arrays_size(), 1);
  EXPECT_EQ(response.arrays(0).handle(), "");  // Attach by (owner, name).
  EXPECT_EQ(response.arrays(0).name(), "listed");
  EXPECT_EQ(response.arrays(0).owner(), "alice");
  EXPECT_EQ(response.arrays(0).nbytes(), 20);
}

// A publication outlives the session that made it and still holds memory, so the tenant's
// listing shows it (by name, without a handle) after that session ended.
TEST_F(SharingTest, ListWithIncludeSharedShowsTheTenantsOwnPublicationsAfterTheirSession) {
  TenantClient alice = Connect("alice");
  ASSERT_TRUE(alice.Publish(alice.Zeros({4}).handle(), "outlives", {}).ok());
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(alice.stub->CloseSession(alice.Context().get(), {}, &closed).ok());
  alice = Connect("alice");
  v1::ListRequest request;
  request.set_all_sessions(true);
  request.set_include_shared(true);
  v1::ListResponse response;
  ASSERT_TRUE(alice.stub->List(alice.Context().get(), request, &response).ok());
  ASSERT_EQ(response.arrays_size(), 1);
  EXPECT_EQ(response.arrays(0).handle(), "");
  EXPECT_EQ(response.arrays(0).name(), "outlives");
  EXPECT_EQ(response.arrays(0).owner(), "alice");
  EXPECT_EQ(response.arrays(0).nbytes(), 16);
  EXPECT_TRUE(response.arrays(0).writable());  // Its own tenant may write.
  EXPECT_EQ(alice.Info().tenant_bytes_in_use(), 16);
  request.set_include_shared(false);  // Handles only: the publication has none.
  ASSERT_TRUE(alice.stub->List(alice.Context().get(), request, &response).ok());
  EXPECT_EQ(response.arrays_size(), 0);
}

TEST_F(SharingTest, BadRequestsSayWhatWasWrong) {
  const TenantClient alice = Connect("alice");
  const TenantClient bob = Connect("bob");
  const v1::ArrayInfo array = alice.Zeros({1});
  EXPECT_STATUS(alice.Publish(array.handle(), ""), INVALID_ARGUMENT,
                "name must have 1 to 128 characters, got 0");
  EXPECT_STATUS(alice.Publish(array.handle(), std::string(129, 'x')), INVALID_ARGUMENT, "got 129");
  EXPECT_STATUS(alice.Publish(array.handle(), "a b"), INVALID_ARGUMENT,
                "character 1 (byte 0x20) is not");
  EXPECT_STATUS(alice.Publish(array.handle(), "x", {"bad tenant"}), INVALID_ARGUMENT,
                "reader_tenants[0] must be 1 to 64 characters");
  ASSERT_TRUE(alice.Publish(array.handle(), "once").ok());
  EXPECT_STATUS(alice.Publish(array.handle(), "once"), ALREADY_EXISTS,
                "has already published an array as 'once'");
  EXPECT_STATUS(alice.Publish("zz", "other"), INVALID_ARGUMENT, "handle");
  EXPECT_STATUS(bob.Attach("once", "no such tenant!"), INVALID_ARGUMENT, "owner must be");

  // Bob may not republish what he only attached.
  ASSERT_TRUE(alice.Publish(array.handle(), "shared", {"bob"}).ok());
  v1::ArrayInfo attached;
  ASSERT_TRUE(bob.Attach("shared", "alice", &attached).ok());
  EXPECT_STATUS(bob.Publish(attached.handle(), "mine-now", {}, true), PERMISSION_DENIED,
                "only the owner may publish it");
}

}  // namespace
}  // namespace arrayhub::testing
