import { z } from "zod";
import { memberUserShape } from "./groups";
import { entity, integer, timestamp } from "./registry";

/**
 * GitLab's Event entity (lib/api/entities/event.rb) for the events Canopy records: a project
 * created, a member joined, left or expired. None has a target, note, wiki page or push data.
 */
export const Event = entity(
  "Event",
  "A project event: created, joined, left or expired.",
  z.object({
    id: integer,
    project_id: integer,
    action_name: z.string(),
    target_id: integer.nullable(),
    target_iid: integer.nullable(),
    target_type: z.string().nullable(),
    author_id: integer,
    target_title: z.string().nullable(),
    created_at: timestamp,
    author: z.object(memberUserShape).optional(),
    imported: z.boolean(),
    imported_from: z.string(),
    author_username: z.string().nullable(),
  }),
);
