# bench/guest-cost.sh's lines in, per state: the median over rounds of
# the ns (or, with -icount, instructions) per pair on all CPUs
# ("pair STATE SLAB PAGE"), what each event costs over state off
# ("event STATE SLAB PAGE MEAN"), and the kvmalloc()/kvfree() pair and
# what its allocation costs over a kmalloc() one ("via STATE PAIR EVENT").
#   awk -v pairs=N -v states=off,... -f bench/cost.awk hook.out
$1 == "state" {
	slab[$2, $4] += $8; page[$2, $4] += $10; via[$2, $4] += $12
	cpus[$2, $4]++; rounds[$2] = $4 > rounds[$2] ? $4 : rounds[$2]
}
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	ns = split(states, st, ",")
	for (s = 1; s <= ns; s++) {
		n = rounds[st[s]]
		for (r = 1; r <= n; r++) {
			a[r] = slab[st[s], r] / (pairs * cpus[st[s], r])
			b[r] = page[st[s], r] / (pairs * cpus[st[s], r])
			c[r] = via[st[s], r] / (pairs * cpus[st[s], r])
		}
		ms[st[s]] = median(a, n); mp[st[s]] = median(b, n); mv[st[s]] = median(c, n)
	}
	for (s = 1; s <= ns; s++)
		printf "pair %s %.1f %.1f\n", st[s], ms[st[s]], mp[st[s]]
	for (s = 2; s <= ns; s++) {
		es = (ms[st[s]] - ms["off"]) / 2; ep = (mp[st[s]] - mp["off"]) / 2
		printf "event %s %.1f %.1f %.1f\n", st[s], es, ep, (es + ep) / 2
	}
	# kvmalloc()/kvfree(): the pair, and what its allocation costs
	# over a kmalloc() one (the free is the same kfree event)
	for (s = 1; s <= ns; s++)
		printf "via %s %.1f %.1f\n", st[s], mv[st[s]],
		       (s > 1 ? (mv[st[s]] - mv["off"]) - (ms[st[s]] - ms["off"]) / 2 : 0)
}
