export { S3Store, type S3StoreOptions } from "./s3-store.js";
