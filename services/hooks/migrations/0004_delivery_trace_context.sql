-- The W3C trace context (traceparent, tracestate) of the consumer span that wrote the delivery: the
-- worker sends it later, from this row, in no request's context, and continues that trace with it so
-- the webhook's HTTP send is part of the trace of the write that fired it. Rows from before: '{}'.
ALTER TABLE deliveries ADD COLUMN trace_context jsonb NOT NULL DEFAULT '{}';
