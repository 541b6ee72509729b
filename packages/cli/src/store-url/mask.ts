export { maskUrl } from "@mem/open";
