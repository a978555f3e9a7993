/*
 * The order protocol of hookgate, one order, every interleaving.
 *
 * Each `atomic` block is ONE SQL statement of packages/store-sql/src/sql-store.ts
 * (docs/architecture.md, "The lease protocol, model-checked", maps them); the
 * steps between them are the awaits of packages/core/src/pipeline, where a
 * process may crash (its fiber gone, the row left as the store holds it).
 *
 * Processes: NSENDERS webhook deliveries of the same order (the provider's
 * first delivery and its replays, concurrent), the retry sweep (which restarts
 * after a crash), and the clock, which may expire any lease at any moment: no
 * timing assumption is made (slow sends, GC pauses and clock skew are all "the
 * lease expired while its holder still ran").
 *
 * Build flags: -DHONOURS=1 a mailer that honours idempotency keys (inside its
 * window), 0 one that does not; -DNO_TOKEN_GUARD the mutant whose complete and
 * release forget `AND lease_token = :token`; -DALERT_WITHOUT_COUNT the mutant whose
 * capped alert does not carry the attempts that may have reached the buyer;
 * -DNO_TAKEOVER_COUNT the mutant whose acquire does not count the lease it takes over.
 */

#ifndef NSENDERS
#define NSENDERS 3
#endif
#ifndef CAP
#define CAP 3
#endif
#ifndef MAXCRASH
#define MAXCRASH 2
#endif
#ifndef MAXFAULT
#define MAXFAULT 1
#endif
#ifndef HONOURS
#define HONOURS 1
#endif

#ifdef NO_TOKEN_GUARD
#define HOLDS(t) (true)
#else
#define HOLDS(t) (lease == t)
#endif

mtype = { ABSENT, PENDING, SENT, CAPPED, FAILED };
mtype = { R_OK, R_TRANSIENT, R_REJECTED, R_UNKNOWN };

/* hookgate_orders: the order's row */
mtype status = ABSENT;
byte attempts = 0;
byte lease = 0;          /* lease_token: the holder's pid (see put); 0 is NULL */
bool expired = false;    /* lease_expires_at <= now */
bool uncertain = false;
byte uncertainAttempts = 0; /* uncertain_attempts: leases that may have sent without a recorded outcome */
byte possibleDups = 0;   /* possible_duplicates, counted by complete */
/* hookgate_alerts */
bool alertCapped = false;
byte alertCount = 0;     /* the attempts the capped alert says may have reached the buyer */
bool alertFailed = false;
bool alertDup = false;

/* ghost state: what the world saw */
byte accepted = 0;       /* emails in the buyer's inbox */
bool badAddress = false; /* the mailer rejects this order's email, every time (chosen at start) */
bool keyUsed = false;    /* the mailer has accepted this order's idempotency key */
byte crashes = 0;
byte faults = 0;         /* store writes that failed (StoreUnavailable) */
byte running = NSENDERS + 1;

/* A crash here: the process stops, the row stays as stored. */
#define CRASH_POINT(label) \
  if \
  :: crashes < MAXCRASH -> crashes++; goto label \
  :: true -> skip \
  fi

/*
 * A statement that applies was issued under the token that holds the lease (a
 * stale token never changes an order), and never reopens a finished order.
 */
#ifdef END_TO_END_ONLY
#define APPLY_CHECK skip
#else
#define APPLY_CHECK \
  assert(lease == _pid); \
  assert(status == PENDING)
#endif

/*
 * INSERT ... ON CONFLICT (order_key) DO NOTHING RETURNING: stored and leased at once.
 * A token is its holder's pid: crypto.randomUUID() is fresh for every lease, a
 * process holds one lease at a time, and the sweep's earlier leases belong to
 * crashed incarnations that never write again. So "the token still holds the
 * lease" is exactly `lease == _pid`, and the state space does not count tokens.
 */
inline put(ok) {
  atomic {
    if
    :: status == ABSENT ->
       status = PENDING; attempts = 0; lease = _pid; expired = false; ok = true
    :: else -> ok = false
    fi
  }
}

/*
 * UPDATE ... WHERE status = 'pending' AND attempts < :cap AND (lease free OR expired) RETURNING *.
 * Taking over an unreleased lease marks the order uncertain and counts the
 * attempt: its holder may have sent before it died (or while it still runs).
 */
inline acquire(ok) {
  atomic {
    if
    :: status == PENDING && attempts < CAP && (lease == 0 || expired) ->
       if
       :: lease != 0 ->   /* taking over an unreleased lease */
          uncertain = true;
#ifndef NO_TAKEOVER_COUNT
          uncertainAttempts++
#else
          skip
#endif
       :: else -> skip
       fi;
       lease = _pid; expired = false; ok = true
    :: else -> ok = false
    fi
  }
}

/* The buyer gets an email, unless the mailer honours the key and has seen it. */
inline deliver() {
  if
  :: HONOURS && keyUsed -> skip
  :: else ->
     accepted++; keyUsed = true;
     assert(!HONOURS || accepted <= 1)   /* never two emails under a key-honouring mailer */
  fi
}

/* mailer.send with the order's idempotency key (in-request retries folded into its answer). */
inline send(result) {
  atomic {
    if
    :: badAddress -> result = R_REJECTED
    :: !badAddress -> deliver(); result = R_OK
    :: !badAddress -> deliver(); result = R_UNKNOWN   /* accepted, then the answer was lost */
    :: true -> result = R_TRANSIENT                   /* 5xx, 429, or no answer: nothing sent */
    fi
  }
}

/* UPDATE ... SET status = 'sent', possible_duplicates += uncertain WHERE lease_token = :token. */
inline complete(applied) {
  atomic {
    if
    :: faults < MAXFAULT -> faults++; applied = false   /* the marker write failed */
    :: HOLDS(_pid) ->
       APPLY_CHECK;
       status = SENT; lease = 0; expired = false;
       if
       :: !HONOURS && uncertain -> possibleDups++; applied = true
       :: else -> applied = false
       fi
    :: else -> applied = false                          /* lease lost: nothing written */
    fi
  }
}

/*
 * The release and its alert, one transaction guarded by the token. The SQL
 * writes attempts = :attempts, the holder's snapshot plus one; under the guard
 * nobody else changed it, so the model writes attempts + 1. An attempt that
 * ended Unknown is counted first; the capped alert carries the count (core
 * computes it from the leased row plus this attempt, the same number).
 */
inline release(result) {
  atomic {
    if
    :: faults < MAXFAULT -> faults++                    /* the write failed: the lease expires */
    :: HOLDS(_pid) ->
       APPLY_CHECK;
       attempts++;
       if
       :: result == R_UNKNOWN -> uncertain = true; uncertainAttempts++
       :: else -> skip
       fi;
       if
       :: result == R_REJECTED -> status = FAILED; alertFailed = true
       :: result != R_REJECTED && attempts >= CAP ->
          status = CAPPED; alertCapped = true;
#ifndef ALERT_WITHOUT_COUNT
          alertCount = uncertainAttempts
#else
          skip
#endif
       :: else -> status = PENDING
       fi;
       lease = 0; expired = false
    :: else -> skip
    fi
  }
}

/*
 * sendLeased: send, then record under the token (uninterruptible in the code,
 * but the process may die). `flag` is true when complete counted a possible
 * duplicate: the alert is a separate write after it.
 */
#define SEND_LEASED(crashed) \
  send(result); \
  CRASH_POINT(crashed); \
  if \
  :: result == R_OK -> \
     result = R_OK; complete(flag); \
     if \
     :: flag -> flag = false; CRASH_POINT(crashed); alertDup = true \
     :: else -> skip \
     fi \
  :: else -> release(result) \
  fi; \
  result = R_OK

/* One webhook delivery: verify, store leased (or take the lease of a pending order), send, answer. */
proctype Sender() {
  bool ok = false; bool flag = false; mtype result = R_OK;
  put(ok);
  if
  :: !ok && status == PENDING -> acquire(ok)
  :: else -> skip
  fi;
  if
  :: ok ->
     ok = false;
     CRASH_POINT(crashed);   /* stored and leased, nothing sent yet */
     SEND_LEASED(crashed)
  :: else -> skip
  fi;
crashed:
  atomic { ok = false; flag = false; result = R_OK; running-- }
}

/*
 * The sweep: while the order is pending and below the cap, one delivery attempt
 * whenever its lease is free or expired. A crash abandons the attempt and the
 * restarted sweep goes on. It stops once nothing is due.
 *
 * It starts once the senders are done (SWEEP_CONCURRENT lifts that): its
 * statements are the senders' own (acquire, send, complete or release), so the
 * race of two lease holders is already explored among the senders, and the
 * sweep's own part is what comes after them: retries up to the cap, and the
 * takeover of leases that crashed senders left behind.
 */
proctype Sweep() {
  bool ok = false; bool flag = false; mtype result = R_OK;
#ifndef SWEEP_CONCURRENT
  running == 1;
#endif
  do
  :: status == PENDING && attempts < CAP && (lease == 0 || expired) ->
     acquire(ok);
     if
     :: ok ->
        ok = false;
        CRASH_POINT(restart);
        SEND_LEASED(restart)
     :: else -> skip
     fi;
restart:
     atomic { ok = false; flag = false; result = R_OK }
  :: running == 1 && status != PENDING -> break
  od;
  running--
}

/* Time: any held lease may expire at any moment. */
active proctype Clock() {
end:
  do
  :: lease != 0 && !expired -> expired = true
  od
}

init {
  atomic {
    byte i = 0;
    if
    :: badAddress = true
    :: badAddress = false
    fi;
    do
    :: i < NSENDERS -> run Sender(); i++
    :: else -> break
    od;
    run Sweep();
    i = 0
  }
  /* Quiescence: nothing left to run. */
  running == 0;
  /* No order lost: sent, or capped or failed with the owner alerted. */
  assert(status == ABSENT || status == SENT || (status == CAPPED && alertCapped) || (status == FAILED && alertFailed));
#if HONOURS
  assert(accepted <= 1);
#else
  /*
   * Every second email is reported: counted as a possible duplicate when the
   * order ends sent, or in the capped alert's count of the attempts that may
   * have reached the buyer (attempts that each end Unknown after the mailer
   * accepted cap the order with every one of those emails out).
   */
  assert(accepted <= 1 || possibleDups > 0 || (status == CAPPED && alertCapped && alertCount >= accepted));
#endif
  /* Whatever the mailer, a capped order's alert counts every email that may be out. */
  assert(status != CAPPED || alertCount >= accepted)
}
