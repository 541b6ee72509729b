export { describeStore, parseStoreUrl, STORE_URL_FORMS, type StoreSpec, storeUrlForms } from "@mem/open";
