export { NoStoreError, StoreSetupError, StoreUrlError } from "@mem/open";
