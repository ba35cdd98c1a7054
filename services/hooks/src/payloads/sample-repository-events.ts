/**
 * Samples of the repository and issue-tracker events the test endpoint sends (push, tag push,
 * issue, note, merge request, wiki page, emoji), shaped as doc/user/project/integrations/
 * webhook_events.md documents them. Canopy hosts none of this data, so ids and texts are sample
 * values; the project, the user and the URLs are the real ones.
 */
import { rubyUtc, xmlschema } from "./dates";
import {
  BLANK_SHA,
  defaultBranch,
  projectBlock,
  projectWebUrl,
  repositoryBlock,
  SAMPLE_SHA,
  sampleCommit,
  userBlock,
  type SampleContext,
} from "./sample-parts";
import { webhookEmail } from "./project-events";

/** Gitlab::DataBuilder::Push.build_sample; `tag` for the tag push sample. */
export function samplePush(ctx: SampleContext, tag: boolean) {
  const kind = tag ? "tag_push" : "push";
  const commits = tag
    ? []
    : [{ ...sampleCommit(ctx, xmlschema(ctx.now)), added: [], modified: ["README.md"], removed: [] }];
  return {
    object_kind: kind,
    event_name: kind,
    before: tag ? BLANK_SHA : SAMPLE_SHA.replace(/^d/, "c"),
    after: SAMPLE_SHA,
    ref: tag ? "refs/tags/v1.0.0" : `refs/heads/${defaultBranch(ctx)}`,
    ref_protected: true,
    checkout_sha: SAMPLE_SHA,
    message: null,
    user_id: ctx.user.id,
    user_name: ctx.user.name,
    user_username: ctx.user.username,
    user_email: webhookEmail(ctx.user),
    user_avatar: ctx.user.avatarUrl ?? null,
    project_id: ctx.project.id,
    project: projectBlock(ctx),
    commits,
    total_commits_count: commits.length,
    push_options: {},
    repository: repositoryBlock(ctx),
  };
}

function sampleIssueAttributes(ctx: SampleContext) {
  const at = xmlschema(ctx.now);
  return {
    id: 1,
    iid: 1,
    title: "Sample issue",
    description: "A sample issue sent by a webhook test.",
    author_id: ctx.user.id,
    project_id: ctx.project.id,
    assignee_ids: [],
    assignee_id: null,
    created_at: at,
    updated_at: at,
    updated_by_id: null,
    last_edited_at: null,
    last_edited_by_id: null,
    milestone_id: null,
    state_id: 1,
    state: "opened",
    confidential: false,
    discussion_locked: null,
    due_date: null,
    time_estimate: 0,
    total_time_spent: 0,
    labels: [],
    type: "Issue",
    url: `${projectWebUrl(ctx)}/-/issues/1`,
  };
}

/** Issue#to_hook_data(user, action: 'open'). */
export function sampleIssue(ctx: SampleContext) {
  return {
    object_kind: "issue",
    event_type: "issue",
    user: userBlock(ctx.user),
    project: projectBlock(ctx),
    object_attributes: { ...sampleIssueAttributes(ctx), action: "open" },
    labels: [],
    changes: {},
    repository: repositoryBlock(ctx),
    assignees: [],
  };
}

/** Gitlab::DataBuilder::Note.build: a comment on the sample issue. */
export function sampleNote(ctx: SampleContext) {
  const at = rubyUtc(ctx.now);
  const issue = sampleIssueAttributes(ctx);
  return {
    object_kind: "note",
    event_type: "note",
    user: userBlock(ctx.user),
    project_id: ctx.project.id,
    project: projectBlock(ctx),
    repository: repositoryBlock(ctx),
    object_attributes: {
      id: 1,
      note: "A sample comment sent by a webhook test.",
      noteable_type: "Issue",
      author_id: ctx.user.id,
      created_at: at,
      updated_at: at,
      project_id: ctx.project.id,
      attachment: null,
      line_code: null,
      commit_id: "",
      noteable_id: issue.id,
      system: false,
      st_diff: null,
      action: "create",
      url: `${issue.url}#note_1`,
    },
    issue: { ...issue, created_at: at, updated_at: at },
  };
}

/** MergeRequest#to_hook_data(user, action: 'open'). */
export function sampleMergeRequest(ctx: SampleContext) {
  const at = xmlschema(ctx.now);
  const project = projectBlock(ctx);
  return {
    object_kind: "merge_request",
    event_type: "merge_request",
    user: userBlock(ctx.user),
    project,
    object_attributes: {
      id: 1,
      iid: 1,
      target_branch: defaultBranch(ctx),
      source_branch: "sample-branch",
      source_project_id: ctx.project.id,
      target_project_id: ctx.project.id,
      author_id: ctx.user.id,
      assignee_ids: [],
      assignee_id: null,
      reviewer_ids: [],
      title: "Sample merge request",
      description: "A sample merge request sent by a webhook test.",
      created_at: at,
      updated_at: at,
      milestone_id: null,
      state_id: 1,
      state: "opened",
      merge_status: "unchecked",
      detailed_merge_status: "checking",
      draft: false,
      work_in_progress: false,
      blocking_discussions_resolved: true,
      first_contribution: false,
      url: `${projectWebUrl(ctx)}/-/merge_requests/1`,
      source: project,
      target: project,
      last_commit: sampleCommit(ctx, at),
      labels: [],
      action: "open",
    },
    labels: [],
    changes: {},
    repository: repositoryBlock(ctx),
    assignees: [],
    reviewers: [],
  };
}

/** Gitlab::DataBuilder::WikiPage.build(page, user, 'create'). */
export function sampleWikiPage(ctx: SampleContext) {
  const web = projectWebUrl(ctx);
  const git = projectBlock(ctx);
  return {
    object_kind: "wiki_page",
    user: userBlock(ctx.user),
    project: git,
    wiki: {
      web_url: `${web}/-/wikis/home`,
      git_ssh_url: git.git_ssh_url.replace(/\.git$/, ".wiki.git"),
      git_http_url: git.git_http_url.replace(/\.git$/, ".wiki.git"),
      path_with_namespace: `${ctx.project.pathWithNamespace}.wiki`,
      default_branch: defaultBranch(ctx),
    },
    object_attributes: {
      title: "home",
      content: "A sample wiki page sent by a webhook test.",
      format: "markdown",
      message: "Create home",
      slug: "home",
      url: `${web}/-/wikis/home`,
      action: "create",
      diff_url: `${web}/-/wikis/home/diff?version_id=${SAMPLE_SHA}`,
      version_id: SAMPLE_SHA,
    },
  };
}

/** Gitlab::DataBuilder::Emoji.build: a thumbs-up on the sample comment, by the caller. */
export function sampleEmoji(ctx: SampleContext) {
  const note = sampleNote(ctx);
  const at = rubyUtc(ctx.now);
  return {
    object_kind: "emoji",
    event_type: "award",
    user: userBlock(ctx.user),
    project_id: ctx.project.id,
    project: projectBlock(ctx),
    object_attributes: {
      user_id: ctx.user.id,
      created_at: at,
      id: 1,
      name: "thumbsup",
      awardable_type: "Note",
      awardable_id: note.object_attributes.id,
      updated_at: at,
      action: "award",
      awarded_on_url: note.object_attributes.url,
    },
    note: { ...note.object_attributes, description: note.object_attributes.note },
    issue: note.issue,
  };
}
