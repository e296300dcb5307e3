import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import type { AgentEventListener } from "../core/events.js";
import { openTelemetry } from "../integrations/open-telemetry.js";

/** Traces of the CLI's runs, sent over OTLP/HTTP; `shutdown` sends what is left before the command exits. */
export type OtlpTracing = { onEvent: AgentEventListener; shutdown(): Promise<void> };

/**
 * Exports runs as traces when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
 * is set; the exporter reads the rest of the standard OTEL_EXPORTER_OTLP_* settings (headers,
 * timeout) itself. A collector that cannot be reached costs one line on stderr, never the run.
 */
export function otlpTracing(env: NodeJS.ProcessEnv, stderr: NodeJS.WritableStream): OtlpTracing | undefined {
  const endpoint = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] || env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  if (!endpoint) return undefined;
  const exporter = reportingFailures(new OTLPTraceExporter(), (reason) => {
    stderr.write(`stepwise: could not send traces to ${endpoint} (${reason}); the run is not affected\n`);
  });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": env["OTEL_SERVICE_NAME"] || "stepwise" }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const { onEvent } = openTelemetry({ tracer: provider.getTracer("stepwise") });
  // A failed export has been reported already; the command's outcome is the run's.
  return { onEvent, shutdown: () => provider.shutdown().catch(() => undefined) };
}

/** Passes spans on, telling `report` (once) when an export failed. */
function reportingFailures(exporter: SpanExporter, report: (reason: string) => void): SpanExporter {
  let reported = false;
  return {
    export(spans: ReadableSpan[], done) {
      exporter.export(spans, (result) => {
        // 0 is ExportResultCode.SUCCESS.
        if (result.code !== 0 && !reported) {
          reported = true;
          report(result.error?.message.split("\n")[0] ?? "export failed");
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
