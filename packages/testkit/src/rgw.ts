/**
 * A real Ceph RADOS Gateway for tests: a throw-away single-node Ceph cluster (one monitor, one OSD on
 * memstore, no manager, pools of size 1, no authentication) and `radosgw` on free loopback ports in a
 * temporary directory, stopped gateway first. Needs Debian's `radosgw ceph-mon ceph-osd ceph-common`.
 */
import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { removeDirectory, trackDirectory } from "./cleanup.js";
import { freePort } from "./ports.js";
import { findOnPath, spawnWatched, type WatchedProcess, waitFor } from "./process-tools.js";
import type { S3Credentials } from "./s3/index.js";

const HOST = "127.0.0.1";
const BINARIES = ["ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "ceph", "monmaptool"] as const;

export interface StartRgwOptions {
  /** Bucket created at start; default `test-bucket`. */
  bucket?: string;
  /** Milliseconds to wait for each step of the start; default 60 000. */
  startTimeoutMs?: number;
}

/** A running Ceph RADOS Gateway with one bucket, reached directly (no proxy, no failure injection). */
export interface RgwServer {
  /** `http://127.0.0.1:{port}`: use with `forcePathStyle: true`. */
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  readonly credentials: S3Credentials;
  /** Stops the gateway, then the OSD, then the monitor, and deletes the cluster's directory. */
  stop(): Promise<void>;
}

/** Which of the binaries the gateway needs are missing from PATH. */
export const missingRgwBinaries = (): string[] => BINARIES.filter((binary) => !findOnPath(binary));

const run = (file: string, args: readonly string[], timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });

const config = (dir: string, fsid: string, monPort: number): string =>
  [
    "[global]",
    `fsid = ${fsid}`,
    `mon host = v2:${HOST}:${monPort}`,
    "mon initial members = a",
    "public addr = 127.0.0.1",
    // No cephx: the cluster lives for one test run on loopback. crc framing lets RGW reach the monitor.
    "auth cluster required = none",
    "auth service required = none",
    "auth client required = none",
    "ms cluster mode = crc",
    "ms service mode = crc",
    "ms client mode = crc",
    "ms mon cluster mode = crc",
    "ms mon service mode = crc",
    "ms mon client mode = crc",
    "ms bind msgr1 = false",
    "osd objectstore = memstore",
    "memstore device bytes = 1073741824",
    "osd pool default size = 1",
    "osd pool default min size = 1",
    "osd pool default pg num = 8",
    "osd pool default pgp num = 8",
    "osd crush chooseleaf type = 0",
    "mon allow pool size one = true",
    "mon warn on pool no redundancy = false",
    "mon max pg per osd = 1000",
    // Pool creation waits on paxos proposals: a short interval makes the start take seconds, not minutes.
    "paxos propose interval = 0.05",
    // A small PG log keeps the memstore OSD's memory flat under many small writes.
    "osd min pg log entries = 10",
    "osd max pg log entries = 10",
    "osd pg log trim min = 10",
    `run dir = ${dir}/run`,
    `admin socket = ${dir}/run/$name.asok`,
    `log file = ${dir}/log/$name.log`,
    `mon data = ${dir}/mon/$cluster-$id`,
    `osd data = ${dir}/osd/$cluster-$id`,
    `keyring = ${dir}/keyring`,
    "",
  ].join("\n");

const missingError = (missing: string[]): Error =>
  new Error(
    `CEPH RGW TESTS CANNOT RUN: ${missing.join(", ")} not found on PATH. ` +
      "Install Debian's `radosgw ceph-mon ceph-osd ceph-common` (the root test command does it when run as root).",
  );

/**
 * Starts a single-node Ceph cluster and a RADOS Gateway with one user and one bucket.
 *
 * @example
 * ```ts
 * const rgw = await startRgw();
 * const client = new S3Client({ endpoint: rgw.endpoint, region: rgw.region, credentials: rgw.credentials, forcePathStyle: true });
 * // ...
 * await rgw.stop();
 * ```
 */
export const startRgw = async (options: StartRgwOptions = {}): Promise<RgwServer> => {
  const missing = missingRgwBinaries();
  if (missing.length > 0) throw missingError(missing);
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const bucket = options.bucket ?? "test-bucket";
  const region = "us-east-1";
  const dir = mkdtempSync(join(tmpdir(), "mem-rgw-"));
  const releaseDirectory = trackDirectory(dir);
  for (const sub of ["run", "log", "mon", "osd", "rgw"]) mkdirSync(join(dir, sub));
  const conf = join(dir, "ceph.conf");
  const fsid = randomUUID();
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  writeFileSync(conf, config(dir, fsid, monPort));
  writeFileSync(join(dir, "keyring"), "");

  const daemons: WatchedProcess[] = [];
  let output = "";
  const daemon = (binary: string, args: readonly string[]) => {
    const started = spawnWatched(binary, ["-f", "-c", conf, ...args]);
    started.onOutput((text) => {
      output = (output + text).slice(-4_000);
    });
    daemons.push(started);
    return started;
  };
  const stop = async (): Promise<void> => {
    // Gateway first, monitor last: an OSD or gateway that loses its monitor retries for minutes.
    for (const started of daemons.reverse()) {
      started.child.kill("SIGKILL");
      await started.exited;
    }
    daemons.length = 0;
    removeDirectory(dir);
    releaseDirectory();
  };

  try {
    const ceph = (...args: string[]) =>
      run("ceph", ["-c", conf, "--connect-timeout", "15", ...args], timeoutMs);
    await run(
      "monmaptool",
      ["--create", "--addv", "a", `[v2:${HOST}:${monPort}]`, "--fsid", fsid, join(dir, "monmap")],
      timeoutMs,
    );
    await run("ceph-mon", ["-c", conf, "--mkfs", "-i", "a", "--monmap", join(dir, "monmap")], timeoutMs);
    daemon("ceph-mon", ["-i", "a"]);
    const id = (await ceph("osd", "create")).trim();
    mkdirSync(join(dir, "osd", `ceph-${id}`));
    await run("ceph-osd", ["-c", conf, "-i", id, "--mkfs"], timeoutMs);
    daemon("ceph-osd", ["-i", id]);
    await waitFor("the OSD to be up", timeoutMs, async () => (await ceph("osd", "stat")).includes("1 up"));
    // tcp_nodelay: with Nagle's algorithm on, the gateway holds back the body of each small response
    // until the client acknowledges its headers, which the client delays: 44 ms per GetObject instead of 2.
    daemon("radosgw", [
      "-n",
      "client.rgw",
      "--rgw-frontends",
      `beast endpoint=${HOST}:${rgwPort} tcp_nodelay=1`,
      "--rgw-data",
      join(dir, "rgw"),
      "--rgw-enable-usage-log=false",
    ]);
    const endpoint = `http://${HOST}:${rgwPort}`;
    await waitFor("the gateway to answer", timeoutMs, async () => (await fetch(endpoint)).status === 200);
    const credentials = {
      accessKeyId: `AK${randomBytes(9).toString("hex").toUpperCase()}`,
      secretAccessKey: randomBytes(24).toString("hex"),
    };
    await run(
      "radosgw-admin",
      [
        "-c",
        conf,
        "-n",
        "client.admin",
        "user",
        "create",
        "--uid",
        "tester",
        "--display-name",
        "tester",
      ].concat(["--access-key", credentials.accessKeyId, "--secret", credentials.secretAccessKey]),
      timeoutMs,
    );
    const client = new S3Client({ endpoint, region, credentials, forcePathStyle: true });
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    } finally {
      client.destroy();
    }
    return { endpoint, bucket, region, credentials, stop };
  } catch (error) {
    await stop();
    throw new Error(`could not start Ceph RGW: ${(error as Error).message}\n${output}`);
  }
};
