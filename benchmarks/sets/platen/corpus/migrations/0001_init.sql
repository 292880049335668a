-- 0001_init: base schema (consolidated at 2.0.0; earlier migrations squashed)

CREATE TABLE sites (
  code        text PRIMARY KEY,            -- RDU1, PHX3, TIL1, ...
  region      text NOT NULL CHECK (region IN ('us', 'eu')),
  timezone    text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE printers (
  id            text PRIMARY KEY,          -- <SITE>-<NAME>, e.g. PHX3-PK-014
  site          text NOT NULL REFERENCES sites(code),
  media         text NOT NULL,             -- 4x6 | 4x8 | a4 | letter
  capabilities  text[] NOT NULL DEFAULT '{zpl}',
  host          inet NOT NULL,
  port          integer NOT NULL DEFAULT 9100,
  admin_state   text,                      -- NULL | drained | quarantined
  admin_reason  text
);

CREATE TABLE jobs (
  id               text NOT NULL,          -- job_<ulid>
  created_on       date NOT NULL DEFAULT current_date,
  client_id        text NOT NULL,
  site             text NOT NULL,
  priority         text NOT NULL DEFAULT 'p1' CHECK (priority IN ('p0', 'p1', 'p2')),
  state            text NOT NULL DEFAULT 'accepted',
  template         text NOT NULL,
  template_version integer,
  data             jsonb NOT NULL,
  target           jsonb NOT NULL,
  copies           smallint NOT NULL DEFAULT 1 CHECK (copies BETWEEN 1 AND 10),
  cutoff_at        timestamptz,
  not_before       timestamptz NOT NULL DEFAULT now(),
  attempt          integer NOT NULL DEFAULT 0,
  claimed_by       text,
  claimed_at       timestamptz,
  assigned_printer text,
  batch_id         text,
  batch_seq        integer,
  client_ref       text,
  last_error_code  text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, created_on)
) PARTITION BY RANGE (created_on);

CREATE INDEX jobs_claimable_idx ON jobs (priority, cutoff_at, created_at)
  WHERE state = 'accepted';
CREATE INDEX jobs_client_ref_idx ON jobs (client_id, client_ref);
CREATE INDEX jobs_batch_order_idx ON jobs (batch_id, assigned_printer, batch_seq)
  WHERE batch_id IS NOT NULL;

CREATE TABLE router_controls (
  priority   text PRIMARY KEY,              -- p0 | p1 | p2 | all
  paused     boolean NOT NULL DEFAULT false,
  reason     text,
  actor      text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE idempotency_keys (
  client_id   text NOT NULL,
  key         text NOT NULL,
  body_sha256 bytea NOT NULL,
  response    jsonb,
  status      smallint,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, key)
);

CREATE TABLE webhook_deliveries (
  id            text PRIMARY KEY,           -- dlv_<ulid>
  subscription  text NOT NULL,
  event_id      text NOT NULL,              -- evt_<ulid>, stable across retries
  state         text NOT NULL DEFAULT 'pending', -- pending | retry | ok | dead | skipped
  attempt       integer NOT NULL DEFAULT 0,
  next_attempt  timestamptz NOT NULL DEFAULT now(),
  last_error    text
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt)
  WHERE state IN ('pending', 'retry');
