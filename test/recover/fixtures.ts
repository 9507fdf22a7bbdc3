import type { RestoreInput } from "../../plugin/recover/inject.ts";
import type { Snapshot } from "../../plugin/snapshot/snapshot.ts";

/** A realistic snapshot, as the capture side writes it. */
export const BILLING: Snapshot = {
  version: 1,
  id: "2026-11-22-03",
  timestamp: "2026-11-22T14:05:00+01:00",
  session: "agent:main:main",
  agent: "main",
  trigger: "compaction",
  name: null,
  parent: null,
  tombstone: false,
  goal: "Migrate the billing service to the v2 events API without downtime or double-charging customers",
  state: {
    phase: "implementing",
    branch: "feat/billing-v2-events",
    blocked: "no",
    progress: "3 of 5 consumers migrated; invoice consumer fails on ERR_DUPLICATE_KEY",
  },
  files: [
    { path: "src/billing/consumers/invoice.ts", note: "fails on redelivered events" },
    { path: "src/billing/events/client.ts", note: "v2 client with retry and backoff, done" },
    { path: "migrations/0042_event_ids.sql", note: "" },
  ],
  decisions: [
    { text: "Upsert on event_id instead of insert", rationale: "v2 redelivers events at least once" },
    { text: "Keep the v1 webhook until all consumers move", rationale: "rollback path" },
  ],
  code: "await db.invoiceEvents.insert({ eventId, payload });\n// throws ERR_DUPLICATE_KEY on redelivery",
  names: [
    { label: "Error", value: "ERR_DUPLICATE_KEY" },
    { label: "Table", value: "billing.invoice_events" },
  ],
  blockers: ["Staging Kafka credentials pending from ops", "Decide retention for dead letters"],
  next: [
    "Make the invoice consumer upsert on event_id",
    "Run npm test -- billing and fix the fallout",
    "Migrate the refunds consumer",
  ],
  extra: [{ heading: "Notes", body: "Ops contact: dana (#billing-ops)" }],
};

/** The nonce of every fixed render in the tests. */
export const NONCE = "0123456789abcdef";

/** A compaction restore of {@link BILLING}, with one stale-file warning. */
export function billingInput(over: Partial<RestoreInput> = {}): RestoreInput {
  return {
    snapshot: BILLING,
    file: "memory/2026-11-22.md",
    line: 41,
    verified: true,
    reason: "compaction",
    warnings: ["src/billing/events/client.ts changed since the snapshot was taken"],
    tokenBudget: 1500,
    nonce: NONCE,
    ...over,
  };
}
