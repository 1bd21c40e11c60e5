// The error of a run directory that cannot be used as it is: a corrupt log or config.json, a
// log without its config, or a directory another live process is running in. Not a config
// error: the config may be fine, the files on disk are not.
/** A run directory that cannot be used as it is: a corrupt log or config.json, or another live process running in it. */
export class RunDirectoryError extends Error {
  /** 'RunDirectoryError'. */
  override name = 'RunDirectoryError';
}
