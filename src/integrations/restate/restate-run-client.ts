import { randomUUID } from "node:crypto";
import type { ApprovalDecisions } from "../../core/approval.js";
import { boundedQuote } from "../../core/bounded-quote.js";
import type { ExternalDriver } from "../../runs/external-driver.js";
import { RESTATE_RUN_SERVICE, type RestateRunInput, type RestateRunResult, type RestateRunStatus } from "./restate-run-service.js";

/** Where a Restate server takes invocations (its ingress, `http://host:8080`), and the workflow's name if not the default. */
export type RestateIngress = { url: string; service?: string };

/**
 * Starts a run on Restate and returns its id at once (the workflow's key); the run goes on in
 * whichever service process Restate gives it to. `runId` makes a retried start harmless: a workflow
 * runs once per key.
 */
export async function startRestateRun(ingress: RestateIngress, input: RestateRunInput & { runId?: string }): Promise<{ runId: string }> {
  const { runId = randomUUID(), ...run } = input;
  await call(ingress, runId, "run/send", run);
  return { runId };
}

/** Resolves what the run waits for with a decision for each of its pending calls. */
export async function decideRestateRun(ingress: RestateIngress, runId: string, decisions: ApprovalDecisions): Promise<void> {
  await call(ingress, runId, "decide", decisions);
}

/**
 * Restate as the run layer's external driver (`openRuns({ externalDrivers: [restateDriver(ingress)] })`):
 * decisions for a run a Restate invocation holds (`restate:<invocation id>`) go to its `decide` handler.
 */
export function restateDriver(ingress: RestateIngress): ExternalDriver {
  return { holds: (holder) => holder.startsWith("restate:"), decide: (runId, decisions) => decideRestateRun(ingress, runId, decisions) };
}

/** The run's plan as it stands and the calls it waits on, if any. */
export async function restateRunStatus(ingress: RestateIngress, runId: string): Promise<RestateRunStatus> {
  return (await call(ingress, runId, "status", null)) as RestateRunStatus;
}

/** Waits for the run to end and gives how it ended. */
export async function restateRunResult(ingress: RestateIngress, runId: string): Promise<RestateRunResult> {
  const response = await fetch(`${base(ingress)}/restate/workflow/${encodeURIComponent(service(ingress))}/${encodeURIComponent(runId)}/attach`);
  return (await answer(response, `waiting for run ${runId}`)) as RestateRunResult;
}

async function call(ingress: RestateIngress, runId: string, handler: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${base(ingress)}/${encodeURIComponent(service(ingress))}/${encodeURIComponent(runId)}/${handler}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return answer(response, `${handler} of run ${runId}`);
}

/** The JSON answer, or an error with Restate's message (bounded: it may echo what was sent). */
async function answer(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // Not JSON: the text as it came.
    }
    throw new Error(`Restate refused the ${what} (HTTP ${response.status}): ${boundedQuote(message, 500)}`);
  }
  return text ? (JSON.parse(text) as unknown) : undefined;
}

function base(ingress: RestateIngress): string {
  return ingress.url.replace(/\/+$/, "");
}

function service(ingress: RestateIngress): string {
  return ingress.service ?? RESTATE_RUN_SERVICE;
}
