/**
 * The built-in profiles' names, apart from their signals (profiles/), so that settings can name one
 * without loading the classifier's rules.
 */
export const PROFILE_NAMES: readonly string[] = ['basic', 'nccl', 'stall', 'production'];

/** The profile a run gets when it names none (or names one that does not exist). */
export const DEFAULT_PROFILE = 'production';
