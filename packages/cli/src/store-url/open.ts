/** Store URLs are read and opened by `@mem/open`; the commands import them through these modules. */
export { type OpenStoreOptions, openMounts, openStore, registerScheme } from "@mem/open";
