/**
 * Counts the turns of the event loop (`setImmediate` callbacks) that run while `task` is pending: how a
 * test proves that long work yields, by count and never by time.
 */
export const turnsDuring = async <T>(task: () => Promise<T>): Promise<{ result: T; turns: number }> => {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await task(), turns };
  } finally {
    running = false;
  }
};
