import * as z from 'zod';
import { ERROR_STATUS, type ErrorCode } from './errors';
import { LIMITS } from '../limits';

/** The success envelope around every answer's data. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({
    status: z.literal('success'),
    message: z.literal('ok'),
    data,
  });
}

export const errorDetailSchema = z.object({
  path: z.string().describe('Dotted path of the offending part of the request body'),
  message: z.string(),
});

export const errorEnvelopeSchema = z.object({
  status: z.literal('error'),
  message: z.string().describe('Human-readable; do not parse it'),
  data: z.looseObject({
    error: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]).describe('Stable machine-readable code'),
    details: z.array(errorDetailSchema).max(LIMITS.maxErrorDetails).optional(),
    details_total: z.int().optional().describe(`How many problems there were, when details lists only the first ${LIMITS.maxErrorDetails}`),
  }),
});

export type SuccessEnvelope<T> = { status: 'success'; message: 'ok'; data: T };
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

export function success<T>(data: T): SuccessEnvelope<T> {
  return { status: 'success', message: 'ok', data };
}

/** A request with 60,000 unknown keys has 60,000 problems; the answer lists the first ones and the total. */
function capDetails(extra: Record<string, unknown>): Record<string, unknown> {
  const details = extra.details;
  if (!Array.isArray(details) || details.length <= LIMITS.maxErrorDetails) return extra;
  return { ...extra, details: details.slice(0, LIMITS.maxErrorDetails), details_total: details.length };
}

export function failure(code: ErrorCode, message: string, extra: Record<string, unknown> = {}): ErrorEnvelope {
  return { status: 'error', message, data: { error: code, ...capDetails(extra) } };
}
