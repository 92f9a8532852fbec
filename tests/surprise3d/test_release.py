"""The scorer drops each scene's predictions once scored (memory for the rest of the run): a pass
still scores every sample, and another pass reads the predictions file again, with the same records."""

from scenebench.benchmarks.surprise3d.annotations import load_annotations
from scenebench.benchmarks.surprise3d.scorer import Surprise3DScorer


def _records(scorer, skip=frozenset()):
    return [r.to_json() for batch in scorer.iter_scores(set(skip)) for r in batch]


def test_two_passes_give_the_same_records(dataset):
    ann = load_annotations(dataset.annotations)
    rows = [{"index": s.index, "mask_indices": list(range(k, 300, 7))} for k, s in enumerate(ann.samples) if k != 2]
    scorer = Surprise3DScorer(ann, dataset.scenes, dataset.write_preds(rows))
    first = _records(scorer)
    assert scorer._preds is None  # released after the pass
    assert _records(scorer) == first and len(first) == len(ann.samples)
    # a pass left half-way (the consumer stopped) also makes the next one read the file again
    it = scorer.iter_scores(set())
    next(it)
    next(it)
    it.close()
    assert _records(scorer) == first
    # resumed: the samples already stored are skipped, the others scored as before
    done = {r["sample_id"] for r in first[:3]}
    assert _records(scorer, done) == [r for r in first if r["sample_id"] not in done]
