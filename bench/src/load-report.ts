/** The load benchmark's report: a Markdown table, the targets met or missed, and a plain SVG chart. */
import type { LevelResult } from "./load-sessions.js";

export interface LoadRow extends LevelResult {
  subject: string;
  raw: boolean;
  tenants: number;
  agents: number;
  cpuSecondsPer1000: number | null;
  wireBytesPerCommand: number | null;
  lostUpdates: number | null;
}

/** What one tenant holds on the server right after seeding, before any agent ran. */
export interface SeededRow {
  subject: string;
  /** Bytes of text in the tenant's files. */
  textBytesPerTenant: number;
  heldBytesPerTenant: number | null;
  heldItemsPerTenant: number | null;
  held: string;
  /** Parts of the held bytes per tenant (Postgres: heap, indexes, TOAST), when split. */
  parts?: Record<string, number>;
}

interface Context {
  tenants: number;
  seconds: number;
  /** Share of the sessions on the hot tenant. */
  hot: number;
  cores: number;
  loadAtStart: string;
  loadAtEnd: string;
  svgFile: string;
  quick: boolean;
}

const fixed = (value: number | null, digits = 1): string =>
  value === null || !Number.isFinite(value) ? "—" : value.toFixed(digits);
const whole = (value: number | null): string =>
  value === null || !Number.isFinite(value) ? "—" : Math.round(value).toLocaleString("en-US");

const COLOURS = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#ff7f0e",
  "#8c564b",
  "#e377c2",
  "#17becf",
  "#7f7f7f",
];

const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** p99 latency (log scale) against concurrent agents, one line per store or raw driver. */
export const loadChart = (rows: readonly LoadRow[]): string => {
  const width = 760;
  const height = 420;
  const left = 70;
  const right = 200;
  const top = 30;
  const bottom = 50;
  const levels = [...new Set(rows.map((row) => row.agents))].sort((a, b) => a - b);
  const subjects = [...new Set(rows.map((row) => row.subject))];
  const values = rows.map((row) => row.p99Ms).filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.log10(Math.max(0.01, Math.min(...values, 1)));
  const hi = Math.log10(Math.max(...values, 10)) + 0.1;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (agents: number) =>
    left + (levels.length === 1 ? plotW / 2 : (levels.indexOf(agents) / (levels.length - 1)) * plotW);
  const y = (ms: number) => top + plotH - ((Math.log10(Math.max(ms, 0.01)) - lo) / (hi - lo)) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${left}" y="18" font-size="14">p99 latency per command against concurrent agents</text>`,
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="black"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="black"/>`,
    `<text x="${left + plotW / 2}" y="${height - 10}" text-anchor="middle">concurrent agents</text>`,
    `<text transform="translate(16 ${top + plotH / 2}) rotate(-90)" text-anchor="middle">p99 (ms, log scale)</text>`,
  ];
  for (const agents of levels) {
    parts.push(
      `<text x="${x(agents)}" y="${top + plotH + 18}" text-anchor="middle">${agents}</text>`,
      `<line x1="${x(agents)}" y1="${top + plotH}" x2="${x(agents)}" y2="${top + plotH + 5}" stroke="black"/>`,
    );
  }
  for (let decade = Math.ceil(lo); decade <= Math.floor(hi); decade++) {
    const ms = 10 ** decade;
    parts.push(
      `<line x1="${left}" y1="${y(ms)}" x2="${left + plotW}" y2="${y(ms)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${y(ms) + 4}" text-anchor="end">${ms >= 1 ? ms : ms.toFixed(2)}</text>`,
    );
  }
  subjects.forEach((subject, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const raw = subject.startsWith("raw-");
    const points = rows
      .filter((row) => row.subject === subject && Number.isFinite(row.p99Ms))
      .sort((a, b) => a.agents - b.agents)
      .map((row) => `${x(row.agents).toFixed(1)},${y(row.p99Ms).toFixed(1)}`);
    parts.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2"${raw ? ' stroke-dasharray="5 4"' : ""} points="${points.join(" ")}"/>`,
      ...points.map((point) => {
        const [cx, cy] = point.split(",");
        return `<circle cx="${cx}" cy="${cy}" r="3" fill="${colour}"/>`;
      }),
      `<line x1="${width - right + 15}" y1="${top + 10 + i * 20}" x2="${width - right + 45}" y2="${top + 10 + i * 20}" stroke="${colour}" stroke-width="2"${raw ? ' stroke-dasharray="5 4"' : ""}/>`,
      `<text x="${width - right + 52}" y="${top + 14 + i * 20}">${escapeXml(subject)}</text>`,
    );
  });
  parts.push("</svg>", "");
  return parts.join("\n");
};

const atMax = (rows: readonly LoadRow[], subject: string): LoadRow | undefined =>
  rows.filter((row) => row.subject === subject).sort((a, b) => b.agents - a.agents)[0];

/** The targets, each met, missed or not measured, with the figures behind it. */
const targets = (rows: readonly LoadRow[]): string[] => {
  const lines: string[] = [];
  const verdict = (ok: boolean) => (ok ? "met" : "missed");
  for (const [store, raw] of [
    ["postgres", "raw-postgres"],
    ["redis", "raw-redis"],
  ] as const) {
    const ours = atMax(rows, store);
    const base = atMax(rows, raw);
    if (ours && base) {
      const ratio = ours.opsPerSec / base.opsPerSec;
      lines.push(
        `- ${store} ≥ 80% of ${raw} ops/s at ${ours.agents} agents: ${(ratio * 100).toFixed(0)}% (${whole(ours.opsPerSec)} against ${whole(base.opsPerSec)}): ${verdict(ratio >= 0.8)}.`,
      );
    } else lines.push(`- ${store} against ${raw}: not measured in this run.`);
  }
  for (const [store, limit] of [
    ["redis", 10],
    ["postgres", 20],
  ] as const) {
    const ours = atMax(rows, store);
    lines.push(
      ours
        ? `- ${store} p99 < ${limit} ms at ${ours.agents} agents: ${fixed(ours.p99Ms)} ms: ${verdict(ours.p99Ms < limit)}.`
        : `- ${store} p99: not measured in this run.`,
    );
  }
  const stores = rows.filter((row) => !row.raw);
  const errors = stores.reduce((sum, row) => sum + row.errors, 0);
  const lost = stores.reduce((sum, row) => sum + (row.lostUpdates ?? 0), 0);
  lines.push(
    `- 0 errors and 0 lost updates at every load level (stores): ${errors} errors, ${lost} lost: ${verdict(errors === 0 && lost === 0)}.`,
  );
  const cluster = atMax(rows, "redis-cluster");
  const single = atMax(rows, "redis");
  if (cluster && single) {
    const ratio = cluster.opsPerSec / single.opsPerSec;
    lines.push(
      `- redis-cluster within 80% of single redis at ${cluster.agents} agents: ${(ratio * 100).toFixed(0)}%: ${verdict(ratio >= 0.8)}.`,
    );
  }
  return lines;
};

export const renderLoad = (
  rows: readonly LoadRow[],
  seeded: readonly SeededRow[],
  context: Context,
): { markdown: string; svg: string } => {
  const markdown = [
    `# Load: ${context.tenants.toLocaleString("en-US")} tenants${context.quick ? " (quick run)" : ""}`,
    "",
    `${context.cores} cores shared with other work; load average (1/5/15 min, \`uptime\`) ${context.loadAtStart} at the start, ${context.loadAtEnd} at the end.`,
    `Each level runs ${context.seconds} s. Agents repeat sessions (view \`/memories\`, view 2–3 files, insert a unique line into`,
    "the tenant's shared log, half the time mark it done with `str_replace`, sometimes create, rename or delete a",
    `scratch file); ${context.hot > 0 ? `${(context.hot * 100).toFixed(0)}% of the sessions go to one hot tenant (\`--hot=${context.hot}\`), the rest to any tenant` : "every session goes to a tenant drawn uniformly (`--hot=0`)"}. Stores run through \`executeCommand\` on`,
    "`store.scope(tenant)`; `raw-*` run the same sessions on the bare driver (no version checks, so they lose",
    "updates under contention). Latency is per command. Servers are started by @mem/testkit on loopback.",
    "",
    "Server CPU: redis-server's INFO cpu, the Postgres backends' /proc/<pid>/stat; SQLite and fs run in the",
    "benchmark's process (—). Wire bytes: Redis INFO stats (both directions), the pg sockets' byte counters.",
    "Every subject is seeded first; then each level runs on every subject in turn. Lost updates are counted once,",
    "after the last level, over every line added at any level.",
    "",
    "| store | agents | ops/s | p50 ms | p99 ms | p999 ms | errors | lost updates | server CPU s / 1,000 cmds | bytes on wire / cmd |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (row) =>
        `| ${row.subject} | ${row.agents} | ${whole(row.opsPerSec)} | ${fixed(row.p50Ms, 2)} | ${fixed(row.p99Ms, 2)} | ${fixed(row.p999Ms, 2)} | ${row.errors} | ${row.lostUpdates ?? "—"} | ${fixed(row.cpuSecondsPer1000, 3)} | ${whole(row.wireBytesPerCommand)} |`,
    ),
    "",
    "## Per tenant after seeding",
    "",
    "Each tenant starts with 7 files (six notes in two directories and the log). Held: growth of what the",
    "server holds over the seeding, divided by tenants; keys (Redis, every node) or rows (Postgres). The basis",
    "of `docs/capacity.md`.",
    "",
    "| store | text / tenant | held / tenant | held ÷ text | keys or rows / tenant |",
    "|---|---:|---:|---:|---:|",
    ...seeded.map(
      (row) =>
        `| ${row.subject} | ${whole(row.textBytesPerTenant)} B | ${row.heldBytesPerTenant === null ? "—" : `${whole(row.heldBytesPerTenant)} B`} | ${row.heldBytesPerTenant === null ? "—" : fixed(row.heldBytesPerTenant / row.textBytesPerTenant, 2)} | ${fixed(row.heldItemsPerTenant)} |`,
    ),
    "",
    ...seeded.map((row) => `- ${row.subject}: ${row.held}`),
    ...seeded
      .filter((row) => row.parts)
      .map(
        (row) =>
          `- ${row.subject} held per tenant in parts: ${Object.entries(row.parts ?? {})
            .map(([name, bytes]) => `${name} ${whole(bytes)} B`)
            .join(", ")}.`,
      ),
    "",
    ...(rows.some((row) => row.firstError)
      ? [
          "First error per row with errors:",
          "",
          ...rows
            .filter((row) => row.firstError)
            .map((row) => `- ${row.subject} at ${row.agents}: ${row.firstError?.slice(0, 200)}`),
          "",
        ]
      : []),
    "## Targets",
    "",
    ...targets(rows),
    "",
    `![p99 latency against concurrent agents](${context.svgFile})`,
    "",
  ].join("\n");
  return { markdown, svg: loadChart(rows) };
};
