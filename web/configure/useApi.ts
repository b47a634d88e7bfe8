import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** Loads a value from the API; `reload` fetches it again. Errors land in `error` (shown by the page). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState('');
  // Only the latest load's answer is shown: an earlier one that answers later (the first load, still
  // running when an upload reloads the list) must not overwrite it.
  const latest = useRef(0);
  const reload = useCallback(() => {
    const mine = ++latest.current;
    load()
      .then((v) => {
        if (mine !== latest.current) return;
        setValue(v);
        setError('');
      })
      .catch((e: Error) => {
        if (mine === latest.current) setError(e.message);
      });
  }, deps);
  useEffect(reload, [reload]);
  return { value, error, reload };
}

/** Runs an action and reports its outcome as a message: `[message, isError]`. */
export function useAction() {
  const [msg, setMsg] = useState<[string, boolean]>(['', false]);
  const run = async (action: () => Promise<string | undefined>) => {
    try {
      const m = await action();
      setMsg([m ?? '', false]);
    } catch (e) {
      setMsg([(e as Error).message, true]);
    }
  };
  /** Runs the action only if the user confirms `question` (deleting, removing). */
  const runConfirmed = (question: string, action: () => Promise<string | undefined>) =>
    confirm(question) ? run(action) : undefined;
  return { msg, setMsg, run, runConfirmed };
}
