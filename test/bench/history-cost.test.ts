import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { costOf } from '../../bench/history-cost.ts';

// The counts behind the Temporal cost ceilings, on histories recorded from real runs (test/workflows/histories/),
// some edited to show what no recorded run has (a retried activity, a schedule's start, a child's own history).

type JsonEvent = Record<string, Record<string, unknown>> & { eventType: string };

function recorded(file: string): { events: JsonEvent[] } {
  return JSON.parse(readFileSync(new URL(`../workflows/histories/${file}`, import.meta.url), 'utf8')) as { events: JsonEvent[] };
}

function attributesOf(json: { events: JsonEvent[] }, eventType: string, key: string): Record<string, unknown> {
  const event = json.events.find((candidate) => candidate.eventType === eventType);
  if (!event) throw new Error(`no ${eventType} in the history`);
  return event[key]!;
}

const started = ['EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', 'workflowExecutionStartedEventAttributes'] as const;

describe('costOf', () => {
  it('when a generation drew its image in a local activity, then it is one execution, one workflow task, one local activity and two actions', () => {
    expect(costOf([historyFromJSON(recorded('generate-post-drawn-locally.json'))])).toEqual({
      workflowExecutions: 1,
      workflowTasks: 1,
      activityTasks: 0,
      localActivities: 1,
      historyEvents: 6,
      billableActions: 2,
    });
  });

  it('when a provider drew the image in an activity, then the activity is an activity task and one action', () => {
    expect(costOf([historyFromJSON(recorded('generate-post-drawn-by-an-activity.json'))])).toEqual({
      workflowExecutions: 1,
      workflowTasks: 2,
      activityTasks: 1,
      localActivities: 0,
      historyEvents: 11,
      billableActions: 2,
    });
  });

  it('when two local activities ran in one workflow task, then they bill one action (and an update one more)', () => {
    // The start, the update that asked to publish now, the local activities (publish, hand the event over) of the one
    // task that ran them.
    expect(costOf([historyFromJSON(recorded('post-publication-published-now.json'))])).toMatchObject({
      workflowTasks: 1,
      localActivities: 2,
      billableActions: 3,
    });
  });

  it('when a publication was re-planned 100 times, then every update, timer and task with local activities is an action', () => {
    // 1 start + 100 updates + 99 timers + 100 workflow tasks that ran local activities.
    expect(costOf([historyFromJSON(recorded('post-publication-continued-as-new.json'))])).toMatchObject({
      workflowTasks: 101,
      localActivities: 100,
      billableActions: 300,
    });
  });

  it('when a delivery waited on a timer and was signalled, then the timer and the signal are an action each', () => {
    // Start, local activity, timer, signal, activity.
    expect(costOf([historyFromJSON(recorded('deliver-event-stopped-by-plan-change.json'))]).billableActions).toBe(5);
  });

  it('when an activity succeeded on its third attempt, then it is one activity task and three actions', () => {
    const json = recorded('generate-post-drawn-by-an-activity.json');
    attributesOf(json, 'EVENT_TYPE_ACTIVITY_TASK_STARTED', 'activityTaskStartedEventAttributes').attempt = 3;
    expect(costOf([historyFromJSON(json)])).toMatchObject({ activityTasks: 1, billableActions: 4 });
  });

  it("when a schedule started the workflow, then the schedule's firing adds two actions to the start's one", () => {
    const json = recorded('scheduled-generation-generated.json');
    attributesOf(json, ...started).searchAttributes = {
      indexedFields: { TemporalScheduledById: { metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: Buffer.from('"schedule-1"').toString('base64') } },
    };
    // The firing 3, two activities 2, the child's start 2.
    expect(costOf([historyFromJSON(json)]).billableActions).toBe(7);
  });

  it("when a child's history is counted with its parent's, then its start is not billed twice", () => {
    const parent = recorded('scheduled-generation-generated.json');
    const child = recorded('generate-post-drawn-locally.json');
    attributesOf(child, ...started).parentWorkflowExecution = { workflowId: 'scheduled-generation-1', runId: '0f5a5b8e-0000-4000-8000-000000000000' };
    // Parent: start 1, two activities 2, the child's start and execution 2; child: its local activity 1.
    expect(costOf([historyFromJSON(parent), historyFromJSON(child)])).toMatchObject({
      workflowExecutions: 2,
      workflowTasks: 6,
      activityTasks: 2,
      localActivities: 1,
      billableActions: 6,
    });
  });

  it('when no history is given, then everything is zero', () => {
    expect(Object.values(costOf([]))).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
