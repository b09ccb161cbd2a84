import { EngineError, type ProblemItem } from '../errors.ts';

export function throwIfAny(problems: ProblemItem[]): void {
  if (problems.length) throw new EngineError('invalid-body', 'The body is not a valid record: see errors.', problems);
}
