// SPDX-License-Identifier: GPL-2.0
/*
 * LEB128 varints and zigzag: exact encodings, round trips and the
 * truncated/overlong inputs the decoder must refuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kmt.h"

/* Encode v and compare with the expected bytes, then decode them back. */
static void check_enc(uint64_t v, const uint8_t *want, unsigned int want_len)
{
	uint8_t buf[16];
	uint64_t got = 0x5a5a5a5a5a5a5a5aULL;
	unsigned int n;

	memset(buf, 0xee, sizeof(buf));
	n = kmt_put_uvar(buf, v);
	assert_int_equal(n, want_len);
	assert_memory_equal(buf, want, want_len);
	/* nothing written past the encoding */
	assert_int_equal(buf[want_len], 0xee);

	assert_int_equal(kmt_get_uvar(want, want + want_len, &got), want_len);
	assert_true(got == v);
}

static void test_encode_small(void **state)
{
	(void)state;
	check_enc(0, (const uint8_t[]){ 0x00 }, 1);
	check_enc(1, (const uint8_t[]){ 0x01 }, 1);
	check_enc(127, (const uint8_t[]){ 0x7f }, 1);
	check_enc(128, (const uint8_t[]){ 0x80, 0x01 }, 2);
	check_enc(300, (const uint8_t[]){ 0xac, 0x02 }, 2);
	check_enc(16383, (const uint8_t[]){ 0xff, 0x7f }, 2);
	check_enc(16384, (const uint8_t[]){ 0x80, 0x80, 0x01 }, 3);
}

static void test_encode_large(void **state)
{
	(void)state;
	check_enc(1ULL << 32,
		  (const uint8_t[]){ 0x80, 0x80, 0x80, 0x80, 0x10 }, 5);
	check_enc(UINT32_MAX,
		  (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0x0f }, 5);
	check_enc(1ULL << 63,
		  (const uint8_t[]){ 0x80, 0x80, 0x80, 0x80, 0x80,
				     0x80, 0x80, 0x80, 0x80, 0x01 }, 10);
	check_enc(UINT64_MAX,
		  (const uint8_t[]){ 0xff, 0xff, 0xff, 0xff, 0xff,
				     0xff, 0xff, 0xff, 0xff, 0x01 }, 10);
}

/* Expected length: one byte per started group of 7 significant bits. */
static unsigned int want_len(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void roundtrip(uint64_t v)
{
	uint8_t buf[16];
	uint64_t got = ~v;
	unsigned int n;

	n = kmt_put_uvar(buf, v);
	assert_int_equal(n, want_len(v));
	assert_in_range(n, 1, 10);
	/* the last byte ends the varint, all others continue it */
	assert_int_equal(buf[n - 1] & 0x80, 0);
	for (unsigned int i = 0; i + 1 < n; i++)
		assert_int_equal(buf[i] & 0x80, 0x80);
	assert_int_equal(kmt_get_uvar(buf, buf + n, &got), n);
	assert_true(got == v);
	/* extra bytes after the varint are not consumed */
	buf[n] = 0x7f;
	assert_int_equal(kmt_get_uvar(buf, buf + n + 1, &got), n);
	assert_true(got == v);
}

static void test_roundtrip(void **state)
{
	unsigned int i;
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (i = 0; i < 64; i++) {
		roundtrip(1ULL << i);
		roundtrip((1ULL << i) - 1);
		roundtrip((1ULL << i) + 1);
		roundtrip(~(1ULL << i));
	}
	roundtrip(UINT64_MAX);
	for (i = 0; i < 10000; i++) {
		/* xorshift: values of every length */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		roundtrip(x >> (i % 64));
	}
}

static void test_sequence(void **state)
{
	static const uint64_t vals[] = { 0, 300, UINT64_MAX, 127, 1ULL << 32, 128 };
	uint8_t buf[64];
	const uint8_t *p = buf, *end;
	unsigned int i, n, len = 0;
	uint64_t v;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		len += kmt_put_uvar(buf + len, vals[i]);
	assert_int_equal(len, 1 + 2 + 10 + 1 + 5 + 2);
	end = buf + len;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		n = kmt_get_uvar(p, end, &v);
		assert_int_not_equal(n, 0);
		assert_true(v == vals[i]);
		p += n;
	}
	assert_ptr_equal(p, end);
	assert_int_equal(kmt_get_uvar(p, end, &v), 0);
}

static void test_truncated(void **state)
{
	uint8_t enc[10];
	uint64_t v = 12345;
	unsigned int n, i;

	(void)state;
	/* empty input */
	assert_int_equal(kmt_get_uvar(enc, enc, &v), 0);
	assert_true(v == 12345);

	/* a lone continuation byte */
	enc[0] = 0x80;
	assert_int_equal(kmt_get_uvar(enc, enc + 1, &v), 0);
	assert_true(v == 12345);

	/* every proper prefix of a 10-byte encoding */
	n = kmt_put_uvar(enc, UINT64_MAX);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++) {
		assert_int_equal(kmt_get_uvar(enc, enc + i, &v), 0);
		assert_true(v == 12345);
	}
	/* and of 300 */
	n = kmt_put_uvar(enc, 300);
	assert_int_equal(kmt_get_uvar(enc, enc + 1, &v), 0);
	assert_int_equal(kmt_get_uvar(enc, enc + n, &v), 2);
	assert_true(v == 300);
}

static void test_overlong(void **state)
{
	uint8_t buf[16];
	uint64_t v = 777;

	(void)state;
	/* 11 continuation bytes */
	memset(buf, 0x80, sizeof(buf));
	assert_int_equal(kmt_get_uvar(buf, buf + 11, &v), 0);
	assert_int_equal(kmt_get_uvar(buf, buf + sizeof(buf), &v), 0);
	assert_true(v == 777);

	/* 10 continuation bytes then a terminator: 11 bytes, too long */
	memset(buf, 0x80, 10);
	buf[10] = 0x00;
	assert_int_equal(kmt_get_uvar(buf, buf + 11, &v), 0);
	assert_true(v == 777);

	/* 10 continuation bytes of 0xff, then a terminator */
	memset(buf, 0xff, 10);
	buf[10] = 0x01;
	assert_int_equal(kmt_get_uvar(buf, buf + 11, &v), 0);
	assert_true(v == 777);

	/* a non-minimal but 10-byte encoding of 0 is still accepted */
	memset(buf, 0x80, 9);
	buf[9] = 0x00;
	assert_int_equal(kmt_get_uvar(buf, buf + 10, &v), 10);
	assert_true(v == 0);
}

static void test_zigzag(void **state)
{
	(void)state;
	assert_true(kmt_zigzag(0) == 0);
	assert_true(kmt_zigzag(-1) == 1);
	assert_true(kmt_zigzag(1) == 2);
	assert_true(kmt_zigzag(-2) == 3);
	assert_true(kmt_zigzag(2) == 4);
	assert_true(kmt_zigzag(INT64_MIN) == UINT64_MAX);
	assert_true(kmt_zigzag(INT64_MAX) == UINT64_MAX - 1);
	assert_true(kmt_zigzag(INT32_MIN) == 0xffffffffULL);
	assert_true(kmt_zigzag(INT32_MAX) == 0xfffffffeULL);

	assert_true(kmt_unzigzag(0) == 0);
	assert_true(kmt_unzigzag(1) == -1);
	assert_true(kmt_unzigzag(2) == 1);
	assert_true(kmt_unzigzag(3) == -2);
	assert_true(kmt_unzigzag(UINT64_MAX) == INT64_MIN);
	assert_true(kmt_unzigzag(UINT64_MAX - 1) == INT64_MAX);
}

static void test_zigzag_roundtrip(void **state)
{
	static const int64_t vals[] = {
		0, 1, -1, 63, -64, 64, -65, 1000000, -1000000,
		INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, INT64_MIN + 1,
		INT64_MAX - 1,
	};
	uint8_t buf[16];
	uint64_t u;
	unsigned int i, n;

	(void)state;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		assert_true(kmt_unzigzag(kmt_zigzag(vals[i])) == vals[i]);
		n = kmt_put_uvar(buf, kmt_zigzag(vals[i]));
		assert_int_equal(kmt_get_uvar(buf, buf + n, &u), n);
		assert_true(kmt_unzigzag(u) == vals[i]);
	}
	/* small magnitudes stay short: -64..63 in one byte */
	assert_int_equal(kmt_put_uvar(buf, kmt_zigzag(-64)), 1);
	assert_int_equal(kmt_put_uvar(buf, kmt_zigzag(63)), 1);
	assert_int_equal(kmt_put_uvar(buf, kmt_zigzag(64)), 2);
	assert_int_equal(kmt_put_uvar(buf, kmt_zigzag(-65)), 2);
	assert_int_equal(kmt_put_uvar(buf, kmt_zigzag(INT64_MIN)), 10);
}

/*
 * The word-at-a-time decoder agrees with the byte loop on every input:
 * each length from 1 to 10 bytes, values at the group boundaries,
 * non-canonical (overlong) encodings, an invalid 10th byte, and buffers
 * that end inside the value, with junk after it.
 */
static void check_same(const uint8_t *p, size_t len)
{
	uint64_t a = 0xdead, b = 0xbeef;
	unsigned int na, nb;

	na = kmt_get_uvar(p, p + len, &a);
	nb = kmt_get_uvar_fast(p, p + len, &b);
	assert_int_equal(na, nb);
	if (na)
		assert_true(a == b);
}

static void test_fast_matches_loop(void **state)
{
	uint8_t buf[32];
	uint64_t x = 0x9e3779b97f4a7c15ULL, v;
	unsigned int i, shift, n, len;

	(void)state;
	for (shift = 0; shift < 64; shift++) {
		for (i = 0; i < 3; i++) {
			v = (1ULL << shift) - 1 + i;
			memset(buf, 0xff, sizeof(buf));
			n = kmt_put_uvar(buf, v);
			for (len = 0; len <= n + 8; len++)
				check_same(buf, len);
			check_same(buf, sizeof(buf));
		}
	}
	for (i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf, &x, 8);
		memcpy(buf + 8, &x, 8);
		buf[(x >> 60) % 12] &= 0x7f;	/* a stop somewhere, or none */
		check_same(buf, 16);
		check_same(buf, (size_t)(x >> 58) % 12);
	}
	/* overlong zero, and a 10-byte value whose last byte is too big */
	memcpy(buf, "\x80\x80\x00\x01", 4);
	check_same(buf, 4);
	check_same(buf, 16);
	memset(buf, 0x80, 9);
	buf[9] = 0x02;
	check_same(buf, 10);
	check_same(buf, 16);
	buf[9] = 0x01;
	check_same(buf, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_small),
		cmocka_unit_test(test_encode_large),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_overlong),
		cmocka_unit_test(test_zigzag),
		cmocka_unit_test(test_zigzag_roundtrip),
		cmocka_unit_test(test_fast_matches_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
