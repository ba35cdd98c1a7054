import type { HookValues } from "./hook-rules";

/** A stored hook with its secrets opened (in this process only; never answered as they are). */
export interface Hook extends HookValues {
  id: number;
  group_id: number;
  signing_secret: string;
  recent_failures: number;
  disabled_until: Date | null;
  created_at: Date;
  updated_at: Date;
}
