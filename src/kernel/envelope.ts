// The one JSON shape of an event, for webhooks, GraphQL `events` subscriptions, GET /events and replays:
// {"id", "type", "timestamp", "api_version", "data": {"object": <record>, ...details}}. `seq` is added where a
// consumer resumes by it (GET /events, subscriptions); a webhook's order key is its timestamp and id.

export interface StoredEvent {
  id: string;
  seq: bigint;
  topic: string;
  payload: unknown;
  details: unknown;
  created_at: Date;
}

export interface EventEnvelope {
  id: string;
  type: string;
  timestamp: string;
  api_version: string;
  data: { object: unknown } & Record<string, unknown>;
}

export function envelopeOf(event: StoredEvent, apiVersion: string): EventEnvelope {
  return {
    id: event.id,
    type: event.topic,
    timestamp: event.created_at.toISOString(),
    api_version: apiVersion,
    data: { object: event.payload, ...((event.details as Record<string, unknown> | null) ?? {}) },
  };
}
