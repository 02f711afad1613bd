declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    /** Patch 008: how long stream records are kept (DynamoDB: 24 h) and an iterator lives (15 min). */
    streamRetentionMs?: number;
    streamIteratorMs?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}
