/**
 * A queue for the tools of framework integrations: frameworks start all calls of one model turn at once,
 * while a `create` and an edit of the same file written in one turn must run in the order the model wrote
 * them.
 */

/** Runs a task after every task given before it has settled; resolves or rejects as the task does. */
export type InOrder = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * A fresh queue: the tasks given to it run one at a time, in the order they were given. A task that
 * rejects does not stop the ones after it.
 */
export const oneAtATime = (): InOrder => {
  let previous: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const result = previous.then(task);
    previous = result.catch(() => undefined);
    return result;
  };
};
