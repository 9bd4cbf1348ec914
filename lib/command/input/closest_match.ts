/**
 * The candidate nearest to `input` by edit distance, if it is near enough to be a plausible typo.
 *
 * @example
 * ```ts
 * closestMatch("tittle", ["title", "body"]); // "title"
 * ```
 */
export function closestMatch(input: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(input, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const tolerance = Math.max(2, Math.floor(input.length / 3));
  if (best !== undefined && (bestDistance <= tolerance || best.startsWith(input) || input.startsWith(best))) {
    return best;
  }
  return undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
