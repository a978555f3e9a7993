/*
 * A campaign's batches, every interleaving: NR recipients in slots of SIZE,
 * each slot's queue message delivered by a consumer (plus one redelivery of
 * slot 1 running at the same time), a pause and a resume (which dispatches the
 * open slots again), crashes, and a clock that may expire any lease.
 *
 * Each `atomic` block is one statement of packages/store-sql/src/sql-campaigns.ts
 * (`reserve`, `record`); the consumer is packages/core/src/campaigns/send-batch.ts
 * and handler.ts. The mailer sends a batch under the batch's idempotency key
 * and honours keys: a recipient gets two emails only if sent under two keys.
 *
 * -DSKIP_RESERVED: the broken reservation that never leases a slot's own
 * reserved rows again and takes the next queued recipients instead.
 * -DALERT_AFTER_RECORD: the batch's capped/failed alert written after the
 * record, as a separate write (what hookgate did before: a crash between them
 * leaves a failed recipient with no alert).
 */

#define NR 3   /* the Clock below names rows 0..2 */
#ifndef SIZE
#define SIZE 2
#endif
#define NB ((NR + SIZE - 1) / SIZE)   /* batch slots, numbered from 1 */
#ifndef CAP
#define CAP 2
#endif
#ifndef MAXCRASH
#define MAXCRASH 2
#endif

mtype = { QUEUED, RESERVED, SENT, FAILED };
mtype = { LEASED, DONE, INPROGRESS, NOTRUNNING, EMPTY };

/* hookgate_campaign_recipients */
mtype status[NR];
byte batchNo[NR];        /* 0 is NULL: never reserved */
byte lease[NR];          /* lease_token: the consumer's pid (as in orders.pml); 0 is NULL */
bool expired[NR];
byte attempts[NR];
/* hookgate_campaigns.state, and hookgate_alerts: a batch's capped/failed alert */
bool running = true;
bool alerted[NB + 1];

/* ghost: emails each recipient got, and under which batch key (bit b) */
byte emails[NR];
byte keys[NR];
byte crashes = 0;
byte live = 0;

/* UPDATE ... SET status = 'reserved', batch_no = :b, lease_token = :t ... RETURNING, then the classifying read. */
inline reserve(b, outcome) {
  atomic {
    byte r = 0; byte n = 0; bool used = false; bool open = false;
    outcome = EMPTY;
    if
    :: !running -> outcome = NOTRUNNING
    :: else ->
       r = 0;
       do
       :: r < NR ->
          if :: batchNo[r] == b -> used = true :: else -> skip fi;
#ifndef SKIP_RESERVED
          if
          :: batchNo[r] == b && status[r] == RESERVED && (lease[r] == 0 || expired[r]) ->
             lease[r] = _pid; expired[r] = false; outcome = LEASED
          :: else -> skip
          fi;
#endif
          r++
       :: else -> break
       od;
#ifdef SKIP_RESERVED
       used = false;
#endif
       if
       :: outcome != LEASED && !used ->
          /* the slot was never used: the next SIZE queued recipients, in seq order */
          r = 0;
          do
          :: r < NR && n < SIZE ->
             if
             :: batchNo[r] == 0 && status[r] == QUEUED ->
                status[r] = RESERVED; batchNo[r] = b; lease[r] = _pid; expired[r] = false;
                n++; outcome = LEASED
             :: else -> skip
             fi;
             r++
          :: else -> break
          od
       :: else -> skip
       fi;
       if
       :: outcome != LEASED ->
          r = 0;
          do
          :: r < NR -> if :: batchNo[r] == b && status[r] == RESERVED -> open = true :: else -> skip fi; r++
          :: else -> break
          od;
          if
          :: open -> outcome = INPROGRESS
          :: !open && used -> outcome = DONE
          :: else -> outcome = EMPTY
          fi
       :: else -> skip
       fi
    fi;
    r = 0; n = 0; used = false; open = false
  }
}

#define SENT_RESULT 1
#define TRANSIENT_RESULT 2
#define UNKNOWN_RESULT 3

/* sendBatch under the batch key: every member gets the email, unless the key was seen. */
inline sendBatch(b, result) {
  atomic {
    byte r = 0;
    if
    :: result = TRANSIENT_RESULT
    :: true ->
       do
       :: r < NR ->
          if
          :: batchNo[r] == b && lease[r] == _pid && status[r] == RESERVED ->
             if
             :: (keys[r] >> b) & 1 -> skip
             :: else -> keys[r] = keys[r] | (1 << b); emails[r]++
             fi;
             assert(emails[r] <= 1)     /* none sent twice under its key */
          :: else -> skip
          fi;
          r++
       :: else -> break
       od;
       if
       :: result = SENT_RESULT
       :: result = UNKNOWN_RESULT      /* accepted, then the answer was lost */
       fi
    fi;
    r = 0
  }
}

/*
 * UPDATE recipients SET status = ..., released_token = :t FROM (results)
 * WHERE batch_no = :b AND lease_token = :t AND status = 'reserved', and in the
 * same atomic step (one transaction, one D1 batch) the batch's alert when a
 * recipient failed: INSERT INTO hookgate_alerts ... WHERE EXISTS (a row of the
 * batch with released_token = :t), so only if this very record applied.
 */
inline record(b, result, retry, gaveUp) {
  atomic {
    byte r = 0;
    do
    :: r < NR ->
       if
       :: batchNo[r] == b && lease[r] == _pid && status[r] == RESERVED ->
          if
          :: result == SENT_RESULT -> status[r] = SENT
          :: result != SENT_RESULT && attempts[r] + 1 >= CAP -> status[r] = FAILED; attempts[r]++; gaveUp = true
          :: else -> attempts[r]++; retry = true
          fi;
          lease[r] = 0; expired[r] = false
       :: else -> skip
       fi;
       r++
    :: else -> break
    od;
#ifndef ALERT_AFTER_RECORD
    if :: gaveUp -> alerted[b] = true :: else -> skip fi;
#endif
    r = 0
  }
}

#define CRASH(label) \
  if \
  :: crashes < MAXCRASH -> crashes++; goto label \
  :: true -> skip \
  fi

/* One slot's queue message, delivered until acknowledged (a crash means a redelivery). */
proctype Consumer(byte b) {
  mtype outcome = EMPTY; byte result = 0; bool retry = false; bool gaveUp = false;
  do
  :: reserve(b, outcome);
     if
     :: outcome == LEASED ->
        CRASH(redeliver);
        sendBatch(b, result);
        CRASH(redeliver);
        record(b, result, retry, gaveUp);
#ifdef ALERT_AFTER_RECORD
        if
        :: gaveUp -> CRASH(redeliver); alerted[b] = true   /* the mutant: a write after the record */
        :: else -> skip
        fi;
#endif
        /* then attemptAlert delivers the stored alert (a crash here leaves it stored and due) */
        if
        :: retry -> skip                              /* Retry with the queue's backoff */
        :: else -> break                              /* Ack */
        fi
     :: outcome == INPROGRESS -> skip                 /* Retry no later than the lease's end */
     :: else -> break                                 /* Done, Empty, NotRunning, LeaseLost: Ack */
     fi;
redeliver:
     atomic { outcome = EMPTY; result = 0; retry = false; gaveUp = false }
  od;
  atomic { outcome = EMPTY; result = 0; retry = false; gaveUp = false; live-- }
}

/* Time: the leases one consumer took may expire at any moment (all its rows share lease_expires_at). */
inline expireHeldBy(row) {
  atomic {
    lease[row] != 0 && !expired[row] ->
    i = 0;
    do
    :: i < NR -> if :: lease[i] == lease[row] -> expired[i] = true :: else -> skip fi; i++
    :: else -> break
    od;
    i = 0
  }
}

active proctype Clock() {
  byte i = 0;
end:
  do
  :: expireHeldBy(0)
  :: expireHeldBy(1)
  :: expireHeldBy(2)
  od
}

/*
 * Pause at any moment; resume once the deliveries in flight have finished (each
 * saw the pause and acknowledged, or completed), then dispatch every open slot.
 */
proctype Control() {
  running = false;
  live == 1;
  atomic {
    running = true;
    byte b = 1; byte r = 0; bool open = false;
    do
    :: b <= (NR + SIZE - 1) / SIZE ->
       open = false; r = 0;
       do
       :: r < NR -> if :: batchNo[r] == b && status[r] == RESERVED -> open = true :: else -> skip fi; r++
       :: else -> break
       od;
       if :: open -> skip :: else -> r = 0; open = true;
          do :: r < NR -> if :: batchNo[r] == b -> open = false :: else -> skip fi; r++ :: else -> break od
       fi;
       if :: open -> live++; run Consumer(b) :: else -> skip fi;
       b++
    :: else -> break
    od;
    b = 0; r = 0; open = false
  };
  live--
}

init {
  byte r = 0;
  atomic {
    do
    :: r < NR -> status[r] = QUEUED; r++
    :: else -> break
    od;
    r = 1;
    do
    :: r <= (NR + SIZE - 1) / SIZE -> live++; run Consumer(r); r++
    :: else -> break
    od;
#ifndef NO_REDELIVERY
    live++;
    run Consumer(1);   /* slot 1's message delivered twice at once */
#endif
#ifndef NO_PAUSE
    live++;
    run Control();
#endif
    r = 0
  }
  live == 0;
  /* Quiescence: no recipient skipped (each sent, or failed with its batch's alert stored). */
  r = 0;
  do
  :: r < NR ->
     assert(status[r] == SENT || status[r] == FAILED);
     assert(status[r] != FAILED || alerted[batchNo[r]]);
     r++
  :: else -> break
  od
}
