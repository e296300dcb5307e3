import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import type { AgentEvent, AgentEventListener, EventParent } from "../core/events.js";
import type { Plugin } from "../core/plugin.js";
import type {} from "../planning/notebook/plan-notebook.js";
import type {} from "../planning/tasks/task-board.js";
import type {} from "../planning/todos/todo-list.js";
import type {} from "../planning/workflows/workflow-events.js";

export interface OpenTelemetryOptions {
  /** Where spans go; without one, the global tracer provider's tracer named "stepwise". */
  tracer?: Tracer;
}

/** A plugin that traces the agent it is given to; `onEvent` traces a workflow (its `onEvent` option). */
export type OpenTelemetryPlugin = Plugin & { readonly onEvent: AgentEventListener };

/** Span and attribute names from the OpenTelemetry GenAI semantic conventions. */
const GEN_AI = {
  operation: "gen_ai.operation.name",
  agentName: "gen_ai.agent.name",
  provider: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  errorType: "error.type",
} as const;

/** Longest error text put on a span: a tool's result is the model's input echoed back, so it is bounded. */
const MAX_STATUS_TEXT = 500;

/**
 * Turns runs into OpenTelemetry spans in the GenAI semantic conventions: `invoke_agent {name}` per
 * agent run (`invoke_workflow {name}` per workflow run), `chat {model}` per model call and
 * `execute_tool {tool}` per tool call as its children, a workflow's steps as their own spans, and
 * plan, board and todo changes as span events. A nested run (a sub-agent, an executor) hangs under
 * the tool call or step that started it. Parents are set explicitly from the events' run ids, so it
 * needs no context manager; a top-level run's parent is whatever span is active when it starts.
 */
export function openTelemetry(opts: OpenTelemetryOptions = {}): OpenTelemetryPlugin {
  const tracer = opts.tracer ?? trace.getTracer("stepwise");
  const spans = new SpanTable();

  const start = (key: string, name: string, parent: Context, attributes: Attributes, time: number, kind = SpanKind.INTERNAL) => {
    const span = tracer.startSpan(name, { kind, attributes, startTime: time }, parent);
    spans.set(key, span);
    return span;
  };

  /** The span of a run, opened by the first event seen from it. */
  const runSpan = (event: AgentEvent): Span | undefined => {
    if (!event.runId) return undefined;
    const open = spans.get(runKey(event.runId));
    if (open) return open;
    const workflow = event.type !== "run-start";
    const operation = workflow ? "invoke_workflow" : "invoke_agent";
    const attributes: Attributes = { [GEN_AI.operation]: operation, [GEN_AI.agentName]: event.agent, "stepwise.run.id": event.runId };
    if (event.parent) Object.assign(attributes, { "stepwise.parent.run.id": event.parent.runId });
    return start(runKey(event.runId), `${operation} ${event.agent}`, parentContext(event.parent), attributes, event.time);
  };

  /** Where a nested run hangs: the tool call or step that started it, else its parent run, else the active span. */
  const parentContext = (parent: EventParent | undefined): Context => {
    if (!parent) return context.active();
    const span =
      (parent.toolCallId !== undefined ? spans.get(toolKey(parent.runId, parent.toolCallId)) : undefined) ??
      (parent.stepId !== undefined ? spans.get(stepKey(parent.runId, parent.stepId)) : undefined) ??
      spans.get(runKey(parent.runId));
    return span ? trace.setSpan(ROOT_CONTEXT, span) : context.active();
  };

  const under = (span: Span) => trace.setSpan(ROOT_CONTEXT, span);

  const onEvent: AgentEventListener = (event) => {
    // The run layer's record of a call a run stopped in: that run's end has closed its spans already,
    // or the run was driven by a process that died. Either way no span is to be opened for it.
    if (event.type === "call-interrupted") return;
    const run = runSpan(event);
    if (!run || !event.runId) return;
    const runId = event.runId;
    switch (event.type) {
      case "model-start": {
        const { provider, model } = modelName(event.model);
        const attributes: Attributes = { [GEN_AI.operation]: "chat", [GEN_AI.requestModel]: model };
        if (provider) attributes[GEN_AI.provider] = provider;
        start(chatKey(runId, event.step), `chat ${model}`, under(run), attributes, event.time, SpanKind.CLIENT);
        break;
      }
      case "model-end": {
        const span = spans.take(chatKey(runId, event.step));
        if (!span) break;
        if (event.usage) {
          span.setAttributes({ [GEN_AI.inputTokens]: event.usage.inputTokens, [GEN_AI.outputTokens]: event.usage.outputTokens });
        }
        span.end(event.time);
        break;
      }
      case "tool-start": {
        const attributes: Attributes = {
          [GEN_AI.operation]: "execute_tool",
          [GEN_AI.toolName]: event.call.name,
          [GEN_AI.toolCallId]: event.call.id,
          [GEN_AI.toolType]: "function",
        };
        start(toolKey(runId, event.call.id), `execute_tool ${event.call.name}`, under(run), attributes, event.time);
        break;
      }
      case "tool-end": {
        const span = spans.take(toolKey(runId, event.call.id));
        if (!span) break;
        if (event.result.isError) {
          span.setAttribute(GEN_AI.errorType, event.refused ? "refused" : "tool_error");
          span.setStatus({ code: SpanStatusCode.ERROR, message: bounded(event.result.text) });
        }
        span.end(event.time);
        break;
      }
      case "workflow-step-start": {
        const attributes: Attributes = {
          "stepwise.workflow": event.workflow,
          "stepwise.step.id": event.step.id,
          "stepwise.step.description": bounded(event.step.description),
          "stepwise.round": event.round,
        };
        start(stepKey(runId, event.step.id), `step ${event.step.id}`, under(run), attributes, event.time);
        break;
      }
      case "workflow-step-end": {
        const span = spans.take(stepKey(runId, event.stepId));
        if (!span) break;
        if (event.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: bounded(event.result) });
        span.end(event.time);
        break;
      }
      case "workflow-planning-started":
        run.addEvent("planning-started", { "stepwise.round": event.round }, event.time);
        break;
      case "workflow-planned":
        run.addEvent(
          "workflow-planned",
          { "stepwise.workflow": event.workflow, "stepwise.round": event.round, "stepwise.plan.steps": event.steps.length, "stepwise.plan.fallback": event.fallback },
          event.time,
        );
        break;
      case "plan-updated":
        run.addEvent(
          "plan-updated",
          { "stepwise.plan.id": event.plan.id, "stepwise.plan.name": event.plan.name, "stepwise.plan.state": event.plan.state, "stepwise.plan.change": event.change },
          event.time,
        );
        break;
      case "tasks-updated":
        run.addEvent(
          "tasks-updated",
          { "stepwise.board.id": event.boardId, "stepwise.board.action": event.action, "stepwise.board.task_ids": event.taskIds },
          event.time,
        );
        break;
      case "todos-updated": {
        const count = (status: string) => event.todos.filter((todo) => todo.status === status).length;
        run.addEvent(
          "todos-updated",
          { "stepwise.todos.pending": count("pending"), "stepwise.todos.in_progress": count("in_progress"), "stepwise.todos.completed": count("completed") },
          event.time,
        );
        break;
      }
      case "run-end":
        run.setAttributes({
          "stepwise.stop_reason": event.stopReason,
          [GEN_AI.inputTokens]: event.usage.inputTokens,
          [GEN_AI.outputTokens]: event.usage.outputTokens,
        });
        spans.closeRun(runId, event.time);
        break;
      case "workflow-end":
        spans.closeRun(runId, event.time);
        break;
      case "run-error":
        run.setStatus({ code: SpanStatusCode.ERROR, message: bounded(event.message) });
        spans.closeRun(runId, event.time);
        break;
    }
  };

  return {
    name: "open-telemetry",
    attach(host) {
      host.on(onEvent, { nested: true });
    },
    onEvent,
  };
}

/** The open spans, by run and by what they are in that run. */
class SpanTable {
  readonly #open = new Map<string, Span>();

  get(key: string): Span | undefined {
    return this.#open.get(key);
  }

  set(key: string, span: Span): void {
    this.#open.set(key, span);
  }

  take(key: string): Span | undefined {
    const span = this.#open.get(key);
    this.#open.delete(key);
    return span;
  }

  /** Ends a run's span and any of its spans still open (an aborted run's model call). */
  closeRun(runId: string, time: number): void {
    const prefix = `${runId}\u0000`;
    for (const [key, span] of this.#open) {
      if (!key.startsWith(prefix)) continue;
      span.end(time);
      this.#open.delete(key);
    }
    this.take(runKey(runId))?.end(time);
  }
}

const runKey = (runId: string) => `run\u0000${runId}`;
const chatKey = (runId: string, step: number) => `${runId}\u0000chat\u0000${step}`;
const toolKey = (runId: string, callId: string) => `${runId}\u0000tool\u0000${callId}`;
const stepKey = (runId: string, stepId: string) => `${runId}\u0000step\u0000${stepId}`;

/** "openai:gpt-4o" names provider and model; a bare id ("scripted") is the model alone. */
function modelName(id: string | undefined): { provider?: string; model: string } {
  if (!id) return { model: "unknown" };
  const colon = id.indexOf(":");
  return colon > 0 ? { provider: id.slice(0, colon), model: id.slice(colon + 1) } : { model: id };
}

function bounded(text: string): string {
  return text.length > MAX_STATUS_TEXT ? `${text.slice(0, MAX_STATUS_TEXT - 1)}…` : text;
}
