package main

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Distributional similarity (-method similar): two words are similar
// when the words around them in operations and schemas are alike (Lin,
// "Automatic retrieval and clustering of similar words", COLING-ACL
// 1998): "chargeback" and "dispute" are both said with card, issuer,
// evidence and merchant, though one API names the object one way and
// another the other.

// The sizes of the similarity computation.
const (
	contextWords = 4000 // the words a word's context vector counts, most widespread first
	topContexts  = 60   // the strongest contexts kept per word (PPMI)
	maxBag       = 50   // the most words of a unit counted
)

// similar is, for each word in at least cf.minProviders providers, its
// cf.perWord most similar words (cosine of PPMI context vectors, at least
// cf.minScore).
func (c *corpus) similar(cf config) map[string][]association {
	inProviders := c.providerCounts()
	var vocab []int32
	for t, n := range inProviders {
		if n >= cf.minProviders {
			vocab = append(vocab, int32(t))
		}
	}
	row := make([]int32, len(c.terms))
	for i := range row {
		row[i] = -1
	}
	for i, t := range vocab {
		row[t] = int32(i)
	}
	byReach := slices.Clone(vocab)
	slices.SortStableFunc(byReach, func(x, y int32) int { return cmp.Compare(inProviders[y], inProviders[x]) })
	col := make([]int32, len(c.terms))
	for i := range col {
		col[i] = -1
	}
	for i, t := range byReach[:min(len(byReach), contextWords)] {
		col[t] = int32(i)
	}
	nc := min(len(byReach), contextWords)
	counts := make([]float32, len(vocab)*nc)
	rowSum, colSum := make([]float64, len(vocab)), make([]float64, nc)
	var total float64
	for _, p := range c.providers {
		w := float32(1 / math.Sqrt(float64(max(len(c.ops[p]), 1))))
		for _, op := range c.ops[p] {
			bag := op.all[:min(len(op.all), maxBag)]
			for _, x := range bag {
				if row[x] < 0 {
					continue
				}
				base := int(row[x]) * nc
				for _, y := range bag {
					if y != x && col[y] >= 0 {
						counts[base+int(col[y])] += w
						rowSum[row[x]] += float64(w)
						colSum[col[y]] += float64(w)
						total += float64(w)
					}
				}
			}
		}
	}
	vectors := make([][]feature, len(vocab))
	for i := range vocab {
		var fs []feature
		for j := range nc {
			if n := float64(counts[i*nc+j]); n > 0 {
				if pmi := math.Log(n * total / (rowSum[i] * colSum[j])); pmi > 0 {
					fs = append(fs, feature{int32(j), pmi})
				}
			}
		}
		slices.SortFunc(fs, func(x, y feature) int { return cmp.Compare(y.v, x.v) })
		vectors[i] = normalise(fs[:min(len(fs), topContexts)])
	}
	return c.neighbours(cf, vocab, vectors, nc)
}

// feature is one context of a word's vector and its weight.
type feature struct {
	ctx int32
	v   float64
}

// normalise scales fs to unit length.
func normalise(fs []feature) []feature {
	var sum float64
	for _, f := range fs {
		sum += f.v * f.v
	}
	for i := range fs {
		fs[i].v /= math.Sqrt(sum)
	}
	return fs
}

// neighbours is each word's most similar words by the cosine of their
// vectors.
func (c *corpus) neighbours(cf config, vocab []int32, vectors [][]feature, nc int) map[string][]association {
	posting := make([][]feature, nc) // by context: the words (as ctx) and weights
	for i, fs := range vectors {
		for _, f := range fs {
			posting[f.ctx] = append(posting[f.ctx], feature{int32(i), f.v})
		}
	}
	out := map[string][]association{}
	dots := make([]float64, len(vocab))
	var touched []int32
	for i, fs := range vectors {
		touched = touched[:0]
		for _, f := range fs {
			for _, o := range posting[f.ctx] {
				if dots[o.ctx] == 0 {
					touched = append(touched, o.ctx)
				}
				dots[o.ctx] += f.v * o.v
			}
		}
		a := c.terms[vocab[i]]
		var as []association
		for _, j := range touched {
			b := c.terms[vocab[j]]
			if int(j) != i && dots[j] >= cf.minScore && !strings.HasPrefix(a, b) && !strings.HasPrefix(b, a) {
				as = append(as, association{term: b, score: dots[j]})
			}
			dots[j] = 0
		}
		slices.SortFunc(as, func(x, y association) int { return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.term, y.term)) })
		if len(as) > 0 {
			out[a] = as[:min(len(as), cf.perWord)]
		}
	}
	return out
}
