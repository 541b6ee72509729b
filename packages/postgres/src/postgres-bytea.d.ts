declare module "postgres-bytea" {
  /** A `bytea` value as PostgreSQL's text output gives it (hex or escape format), as bytes. */
  export default function parseBytea(input: string): Buffer;
}
