import { eventually } from './eventually.ts';
import { withClient } from './test-database.ts';

// The moment between a keyed request's effect and its answer, made to last: an api stores a keyed request's answer
// (an update of its idempotency_keys row that sets response_status) after the operation committed and before it
// sends anything. A trigger in the test's own database makes that update wait for an advisory lock the test holds,
// so the api can be killed exactly there, every time, without a hook in the product's code.

const answerLock = 45_045;

export type AnswerHold = {
  /** Resolves once an api is held storing an answer. */
  waiting(): Promise<void>;
  /**
   * Ends the database sessions of the held answers, as the death of their api does: the held update is rolled back
   * (released, it would go on and store the answer of a request whose api is gone).
   */
  endHeldSessions(): Promise<void>;
};

/** Runs `during` while every keyed answer stored in the database at `url` waits. The trigger is gone when it ends. */
export async function holdingStoredAnswers<T>(url: string, during: (hold: AnswerHold) => Promise<T>): Promise<T> {
  return withClient(url, async (holder) => {
    const held = `from pg_locks where locktype = 'advisory' and objid = ${answerLock} and not granted`;
    const endHeldSessions = async () => {
      await holder.query(`select pg_terminate_backend(pid) ${held}`);
    };
    await holder.query(`
      create or replace function hold_stored_answer() returns trigger language plpgsql as $$
      begin
        if new.response_status is not null and old.response_status is null then perform pg_advisory_xact_lock(${answerLock}); end if;
        return new;
      end $$;
      create or replace trigger hold_stored_answer before update on idempotency_keys for each row execute function hold_stored_answer();`);
    await holder.query('select pg_advisory_lock($1)', [answerLock]);
    try {
      return await during({
        waiting: () =>
          eventually(async () => {
            const { rows } = await holder.query<{ waiting: number }>(`select count(*)::int as waiting ${held}`);
            if (rows[0]?.waiting !== 1) throw new Error(`${rows[0]?.waiting ?? 0} answers waiting, not 1`);
          }),
        endHeldSessions,
      });
    } finally {
      await endHeldSessions();
      await holder.query('select pg_advisory_unlock($1)', [answerLock]);
      await holder.query('drop trigger hold_stored_answer on idempotency_keys; drop function hold_stored_answer();');
    }
  });
}
