// Owns one HTTP exchange over an undici dispatcher as a promise: the client's calls to the
// service. A dispatch with a handler of its own rather than undici's request(): the request
// leaves sooner and the answer's bytes are taken as they come, with no body stream and
// consumer (~0.1 ms each way on an idle process here, on the path from SMTP to a waiting test).
// (The service's webhook POSTs have a client of their own: src/server/delivery/http1.ts.)
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** An answer with its whole body (empty when it was thrown away). */
export interface ExchangeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ExchangeOptions {
  /** Ends the exchange with the signal's reason when it aborts, also while the request still waits for a connection. */
  signal?: AbortSignal | undefined;
}

const NO_BODY = Buffer.alloc(0);

/** Sends one request through `dispatcher`; rejects with what undici reports or with the signal's reason. */
export function exchange(dispatcher: Dispatcher, request: Dispatcher.DispatchOptions, options: ExchangeOptions = {}): Promise<ExchangeAnswer> {
  const { signal } = options;
  const reason = () => (signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
  return new Promise((resolve, reject) => {
    let answer: Omit<ExchangeAnswer, 'body'> | null = null;
    const chunks: Buffer[] = [];
    let settled = false;
    let controller: Dispatcher.DispatchController | null = null;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      done();
    };
    const onAbort = () => {
      settle(() => reject(reason()));
      controller?.abort(reason());
    };
    if (signal?.aborted) return reject(reason());
    signal?.addEventListener('abort', onAbort, { once: true });
    // onRequestStart marks the handler as undici's current kind (without it, undici asks for the old callbacks).
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (settled) started.abort(reason());
      },
      onResponseStart(_controller, status, headers) {
        answer = { status, headers };
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        const body = chunks.length === 0 ? NO_BODY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        settle(() => resolve({ status: answer?.status ?? 0, headers: answer?.headers ?? {}, body }));
      },
      onResponseError(_controller, error) {
        settle(() => reject(error));
      },
    };
    try {
      dispatcher.dispatch(request, handler);
    } catch (error) {
      settle(() => reject(error as Error));
    }
  });
}
