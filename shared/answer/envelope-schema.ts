import * as z from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../errors';

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
    details: z.array(errorDetailSchema).optional(),
  }),
});

export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;
