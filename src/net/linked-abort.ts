// A controller of one's own that also aborts when a caller's signal does, listening to that
// signal only until unlink(): the caller's may live for days (run's), so nothing may stay
// attached to it after the work that followed it ends.

export interface LinkedAbort {
  controller: AbortController;
  unlink(): void;
}

export function linkedAbort(outer: AbortSignal | undefined): LinkedAbort {
  const controller = new AbortController();
  const follow = () => controller.abort(outer?.reason);
  if (outer?.aborted === true) follow();
  else outer?.addEventListener('abort', follow, { once: true });
  return { controller, unlink: () => outer?.removeEventListener('abort', follow) };
}
