// What the /play page uses of Connect's web client and protobuf-es, as one global
// (`GalleristConnect`): the page builds its message types at run time from the service's
// descriptors (embedded in the page by the server), so this bundle does not depend on the
// .proto files and changes only when the pinned packages do.
export { createClient, ConnectError, Code } from "@connectrpc/connect";
export { createConnectTransport } from "@connectrpc/connect-web";
export { create, fromBinary, toJson, fromJson, createFileRegistry } from "@bufbuild/protobuf";
export { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
