/**
 * The shared rate's schema in the ledger's PostgreSQL database, as ordered migrations tracked in
 * `shared_rate_schema` (its own version, apart from the ledger's: either can grow alone). Never
 * edit a shipped migration; append one (`CREATE OR REPLACE FUNCTION` for a changed function).
 *
 * One row per (origin, model): a GCRA bucket without burst (`tat`, the time the next start is due,
 * on the server's clock in ms), the pause every worker keeps after a 429 with Retry-After, and for
 * a model without an rpm the rate every worker discovers together (rate-discovery.ts's AIMD, with
 * successes summed over workers). Each call is one statement: a function that locks the row, does
 * the arithmetic and writes it back, so two workers' leases never overlap.
 */
export const sharedRateMigrations: ReadonlyArray<string> = [
  `
  CREATE TABLE shared_rates (
    origin           text NOT NULL,             -- the service's base URL, without credentials
    model            text NOT NULL,
    tat              double precision NOT NULL DEFAULT 0,  -- next start due (ms since the epoch)
    paused_until     double precision NOT NULL DEFAULT 0,  -- no start before (a 429's Retry-After)
    rate             double precision,          -- discovered starts per second (null: none yet)
    probing          boolean NOT NULL DEFAULT true,
    ceiling          double precision,          -- accepted per second at the last 429
    last_decrease_at double precision NOT NULL DEFAULT 0,
    decreases        integer NOT NULL DEFAULT 0,
    accepted         double precision NOT NULL DEFAULT 0,  -- successes per ms, exponentially weighted
    accepted_at      double precision NOT NULL DEFAULT 0,
    first_success_at double precision,
    updated_at       double precision NOT NULL DEFAULT 0,
    PRIMARY KEY (origin, model)
  );

  -- exp() of a large negative number is an underflow error in PostgreSQL: 0 past 50 time constants.
  CREATE FUNCTION svc_batch_decay(dt double precision, tau double precision) RETURNS double precision
  LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN dt <= 0 THEN 1 WHEN dt > 50 * tau THEN 0 ELSE exp(-dt / tau) END
  $$;

  -- Successes reported by a worker (discovering: d holds rate-discovery.ts's settings): the
  -- accepted rate's average, and the additive increase (each success adds probeGain while
  -- probing, increase × ceiling / rate after).
  CREATE FUNCTION svc_batch_rate_absorb(r shared_rates, now_ms double precision, successes integer, d jsonb)
  RETURNS shared_rates LANGUAGE plpgsql AS $$
  DECLARE
    tau double precision := (d->>'windowMs')::double precision;
  BEGIN
    IF d IS NULL THEN RETURN r; END IF;
    IF r.rate IS NULL THEN
      r.rate := (d->>'initialRate')::double precision;
      r.probing := true;
    END IF;
    IF successes > 0 THEN
      r.first_success_at := coalesce(r.first_success_at, now_ms);
      r.accepted := r.accepted * svc_batch_decay(now_ms - r.accepted_at, tau) + successes / tau;
      r.accepted_at := now_ms;
      IF r.probing THEN
        r.rate := r.rate + (d->>'probeGain')::double precision * successes;
      ELSE
        r.rate := r.rate + successes * (d->>'increase')::double precision * coalesce(r.ceiling, r.rate) / r.rate;
        IF r.ceiling IS NOT NULL AND r.rate > (d->>'reprobeAbove')::double precision * r.ceiling THEN
          r.probing := true;
        END IF;
      END IF;
    END IF;
    RETURN r;
  END $$;

  CREATE FUNCTION svc_batch_rate_row(p_origin text, p_model text) RETURNS shared_rates
  LANGUAGE plpgsql AS $$
  DECLARE
    r shared_rates;
  BEGIN
    SELECT * INTO r FROM shared_rates WHERE origin = p_origin AND model = p_model FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO shared_rates (origin, model) VALUES (p_origin, p_model) ON CONFLICT DO NOTHING;
      SELECT * INTO r FROM shared_rates WHERE origin = p_origin AND model = p_model FOR UPDATE;
    END IF;
    RETURN r;
  END $$;

  CREATE FUNCTION svc_batch_rate_store(r shared_rates, now_ms double precision) RETURNS void
  LANGUAGE sql AS $$
    UPDATE shared_rates SET
      tat = r.tat, paused_until = r.paused_until, rate = r.rate, probing = r.probing,
      ceiling = r.ceiling, last_decrease_at = r.last_decrease_at, decreases = r.decreases,
      accepted = r.accepted, accepted_at = r.accepted_at, first_success_at = r.first_success_at,
      updated_at = now_ms
    WHERE origin = r.origin AND model = r.model
  $$;

  -- A lease: the next starts of the bucket, enough for p_lease_ms at the rate (at least one),
  -- after any pause. p_interval: the configured ms between starts; null: the discovered rate.
  CREATE FUNCTION svc_batch_rate_lease(
    p_origin text, p_model text, p_interval double precision, p_lease_ms double precision,
    p_successes integer, d jsonb
  ) RETURNS TABLE (
    now_ms double precision, first_in_ms double precision, step_ms double precision, starts integer,
    rate_per_s double precision, is_probing boolean, ceiling_per_s double precision, decrease_count integer
  ) LANGUAGE plpgsql AS $$
  DECLARE
    now_ms double precision := extract(epoch FROM clock_timestamp()) * 1000;
    r shared_rates := svc_batch_rate_row(p_origin, p_model);
    s double precision;
    k integer;
    first double precision;
  BEGIN
    r := svc_batch_rate_absorb(r, now_ms, p_successes, d);
    s := coalesce(p_interval, 1000 / r.rate);
    k := least(1000, greatest(1, floor(p_lease_ms / s)))::integer;
    first := greatest(r.tat, now_ms, r.paused_until);
    r.tat := first + k * s;
    PERFORM svc_batch_rate_store(r, now_ms);
    RETURN QUERY SELECT now_ms, first - now_ms, s, k, coalesce(1000 / p_interval, r.rate), r.probing, r.ceiling, r.decreases;
  END $$;

  -- A 429 for a request started p_started_ago ms ago. A Retry-After pauses every worker (when
  -- discovering, only one longer than the window: a spent quota, not a short overshoot). When
  -- discovering, the rate decreases once per overshoot: to decrease × the rate the service
  -- accepted at the first 429 (probing ends), by the factor decrease after.
  CREATE FUNCTION svc_batch_rate_limited(
    p_origin text, p_model text, p_interval double precision, p_started_ago double precision,
    p_retry_after double precision, p_successes integer, d jsonb
  ) RETURNS TABLE (
    paused_for_ms double precision, was_decreased boolean,
    rate_per_s double precision, is_probing boolean, ceiling_per_s double precision, decrease_count integer
  ) LANGUAGE plpgsql AS $$
  DECLARE
    now_ms double precision := extract(epoch FROM clock_timestamp()) * 1000;
    r shared_rates := svc_batch_rate_row(p_origin, p_model);
    discovering boolean := p_interval IS NULL AND d IS NOT NULL;
    tau double precision := (d->>'windowMs')::double precision;
    measured double precision := 0;
    paused double precision := 0;
    decreased boolean := false;
  BEGIN
    r := svc_batch_rate_absorb(r, now_ms, p_successes, CASE WHEN discovering THEN d END);
    IF p_retry_after IS NOT NULL AND (NOT discovering OR p_retry_after > tau) THEN
      r.paused_until := greatest(r.paused_until, now_ms + p_retry_after);
      paused := r.paused_until - now_ms;
    END IF;
    IF discovering AND now_ms - p_started_ago >= r.last_decrease_at THEN
      -- Successes come in batches (with each lease): the first is counted a quarter window old at least.
      IF r.first_success_at IS NOT NULL THEN
        measured := 1000 * r.accepted * svc_batch_decay(now_ms - r.accepted_at, tau)
          / (1 - svc_batch_decay(greatest(now_ms - r.first_success_at, tau / 4), tau));
      END IF;
      IF r.probing THEN
        r.probing := false;
        r.ceiling := CASE WHEN measured > 0 THEN measured ELSE r.rate END;
        r.rate := (d->>'decrease')::double precision * least(r.rate, r.ceiling);
      ELSE
        IF measured > 0 THEN r.ceiling := measured; END IF;
        r.rate := (d->>'decrease')::double precision * r.rate;
      END IF;
      r.rate := greatest((d->>'minRate')::double precision, r.rate);
      r.last_decrease_at := now_ms;
      r.decreases := r.decreases + 1;
      decreased := true;
    END IF;
    PERFORM svc_batch_rate_store(r, now_ms);
    RETURN QUERY SELECT paused, decreased, coalesce(1000 / p_interval, r.rate), r.probing, r.ceiling, r.decreases;
  END $$;
  `
]
