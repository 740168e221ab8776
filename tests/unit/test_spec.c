/*
 * test_spec.c - analysis/sweep/spec: the campaign specification language
 * (docs/SWEEP.md): the seed's Appendix B example with its defects fixed,
 * the seed's own grammar style (';' and braces), combinations and their
 * order, RUN commands, and each error with its line and column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "analysis/sweep/spec.h"
#include "base/errors.h"

/* Appendix B of seed 003, fixed: IDENT added, one '#' a comment line, no "...". */
static const char appendix_b_text[] = "IDENT NAME = multicast TYP = SYNC\n"
                                      "IN\n"
                                      "    ENDPOINT 1 = 1 # one incoming packet per processing period\n"
                                      "                   # for input endpoint 1\n"
                                      "OUT\n"
                                      "    ENDPOINT 1 = 1 # one outgoing packet per processing period\n"
                                      "    ENDPOINT 2 = 1\n"
                                      "    ENDPOINT 3 = 1\n"
                                      "    ENDPOINT 4 = 1\n"
                                      "    ENDPOINT 5 = 1\n"
                                      "    ENDPOINT 6 = 1\n"
                                      "    ENDPOINT 7 = 1\n"
                                      "    ENDPOINT 8 = 1\n"
                                      "    ENDPOINT 9 = 1\n"
                                      "    ENDPOINT 10 = 1# one outgoing packet per processing period\n"
                                      "ATTRIBUTES\n"
                                      "LOOP\n"
                                      "    1002 SUB 1 = 2 TO 10 STEP 1\n"
                                      "                    # attribute 1002 of the MSH specifies the number\n"
                                      "                    # of MSH output endpoints (2 .. 10)\n"
                                      "    1024 SUB 0 = 10\n"
                                      "                    # the size of incoming packets\n";

TEST(appendix_b)
{
	struct tl_spec s;
	const struct tl_spec_value *v[2];

	CHECK_EQ_INT(tl_spec_parse(appendix_b_text, "b.spec", &s), 0);
	CHECK_EQ_STR(s.name, "multicast");
	CHECK_EQ_INT(s.async, 0);
	CHECK_EQ_INT(s.nin, 1);
	CHECK_EQ_INT(s.nout, 10);
	CHECK(s.nout == 10 && s.out[9].id == 10 && s.out[9].packets == 1);
	CHECK_EQ_INT(s.nattrs, 2);
	CHECK_EQ_INT(s.nseries, 1);
	CHECK_EQ_INT(tl_spec_combinations(&s), 9);
	CHECK_EQ_INT(s.repeat, 1);
	CHECK_EQ_STR(s.run, "");
	if (s.nattrs == 2) {
		CHECK_EQ_STR(s.attrs[0].name, "1002.1");
		CHECK_EQ_INT(s.attrs[0].nv, 9);
		CHECK_EQ_STR(s.attrs[1].name, "1024.0");
		CHECK_EQ_INT(s.attrs[1].series, 0);
		tl_spec_combination(&s, 8, v);
		CHECK(v[0] && v[0]->is_num && v[0]->num == 10 && !strcmp(v[0]->str, "10"));
		CHECK(v[1] && !strcmp(v[1]->str, "10"));
	}
	tl_spec_release(&s);
}

/* The seed's Appendix B as printed: its comments span lines ("# ... #"). */
TEST(appendix_b_as_printed)
{
	struct tl_spec s;

	CHECK_EQ_INT(tl_spec_parse("IN\n"
	                           "    ENDPOINT 1 = 1 # one incoming packet per processing period\n"
	                           "                    for input endpoint 1 #\n",
	                           "b.spec", &s),
	             -1);
	CHECK_EQ_STR(tl_error_msg(),
	             "specification b.spec:3:21: 'for' is not a keyword (a comment runs to the end of its line: "
	             "start each of its lines with '#')");
	/* its "..." */
	CHECK_EQ_INT(tl_spec_parse("OUT\n  ENDPOINT 1 = 1\n  ...\n", "b.spec", &s), -1);
	CHECK_EQ_STR(tl_error_msg(), "specification b.spec:3:3: unexpected character '.'");
}

/* The seed's grammar style: rules ending in ';', LOOP with braces, ASYNC n. */
TEST(grammar_style)
{
	struct tl_spec s;

	CHECK_EQ_INT(tl_spec_parse("IDENT NAME = msh; TYP = ASYNC 3;\n"
	                           "IN ENDPOINT 1 = 2;\n"
	                           "OUT\n"
	                           "ATTRIBUTES LOOP { 1002 SUB 1 = 2 TO 4 STEP 1; 7 SUB 0 = 1, 2; }\n",
	                           "g.spec", &s),
	             0);
	CHECK_EQ_STR(s.name, "msh");
	CHECK(s.async == 1 && s.async_n == 3);
	CHECK(s.nin == 1 && s.in[0].packets == 2 && s.nout == 0);
	CHECK_EQ_INT(tl_spec_combinations(&s), 6);
	tl_spec_release(&s);
}

/*
 * Series and their order: a fixed attribute, a LOOP of a x b (a slowest),
 * then a LOOP of d: 2 x 3 + 3 = 9 combinations.
 */
TEST(combinations)
{
	struct tl_spec s;
	const struct tl_spec_value *v[4];
	char *cmd;

	CHECK_EQ_INT(tl_spec_parse("ATTRIBUTES\n"
	                           "  c = 5\n"
	                           "  LOOP { a = 1, 2  b = x, \"y z\", 10KB }\n"
	                           "  LOOP d = 0.1 TO 0.3 STEP 0.1\n"
	                           "RUN  ./prog --a {a} --b '{b}' -c {c} -r {rep} --out {out} {in.1}  \n"
	                           "IN ENDPOINT 1 = 4\n"
	                           "REPEAT 3\n"
	                           "MODULE send @ 25Hz\n"
	                           "MODULE \"decode frame\" @ 0.5\n"
	                           "MODULE mix @ 100 Hz\n",
	                           "c.spec", &s),
	             0);
	CHECK_EQ_INT(tl_spec_combinations(&s), 9);
	CHECK_EQ_INT(s.repeat, 3);
	CHECK_EQ_INT(s.nseries, 2);
	CHECK_EQ_STR(s.run, "./prog --a {a} --b '{b}' -c {c} -r {rep} --out {out} {in.1}");
	CHECK_EQ_INT(s.nmodules, 3);
	if (s.nmodules == 3) {
		CHECK(!strcmp(s.modules[0].span, "send") && s.modules[0].hz == 25);
		CHECK(!strcmp(s.modules[1].span, "decode frame") && s.modules[1].hz == 0.5);
		CHECK(!strcmp(s.modules[2].span, "mix") && s.modules[2].hz == 100);
	}
	CHECK_EQ_INT(s.nattrs, 4);
	if (s.nattrs != 4) {
		tl_spec_release(&s);
		return;
	}
	tl_spec_combination(&s, 0, v);
	CHECK(!strcmp(v[0]->str, "5") && !strcmp(v[1]->str, "1") && !strcmp(v[2]->str, "x") && !v[3]);
	tl_spec_combination(&s, 2, v);
	CHECK(!strcmp(v[1]->str, "1") && !strcmp(v[2]->str, "10KB") && !v[2]->is_num);
	tl_spec_combination(&s, 4, v);
	CHECK(!strcmp(v[1]->str, "2") && !strcmp(v[2]->str, "y z"));
	cmd = tl_spec_command(&s, v, 2);
	CHECK_EQ_STR(cmd ? cmd : "(null)", "./prog --a 2 --b 'y z' -c 5 -r 2 --out 0 4");
	free(cmd);
	tl_spec_combination(&s, 8, v);
	CHECK(!v[1] && !v[2] && !strcmp(v[0]->str, "5") && !strcmp(v[3]->str, "0.3") && v[3]->num > 0.29);
	cmd = tl_spec_command(&s, v, 1);
	CHECK(!cmd);
	CHECK_EQ_STR(tl_error_msg(), "{a} has no value in this combination (its LOOP is another)");
	tl_spec_release(&s);
	/* no LOOP: one combination */
	CHECK_EQ_INT(tl_spec_parse("RUN true\n", "c.spec", &s), 0);
	CHECK_EQ_INT(tl_spec_combinations(&s), 1);
	tl_spec_release(&s);
}

static void error_is(const char *text, const char *want)
{
	struct tl_spec s;

	CHECK_EQ_INT(tl_spec_parse(text, "e.spec", &s), -1);
	CHECK_EQ_STR(tl_error_msg(), want);
}

TEST(errors)
{
	error_is("ATTRIBUTES LOOP {\n a = 1\n", "specification e.spec:1:12: this LOOP's '{' is not closed by a '}'");
	error_is("ATTRIBUTES LOOP a = 5 TO 1\n",
	         "specification e.spec:1:21: the range goes down (a TO b needs a <= b)");
	error_is("ATTRIBUTES LOOP a = 1 TO 5 STEP 0\n",
	         "specification e.spec:1:21: the range has a STEP of 0 or below, or over 100000 values");
	error_is("IN 1 = 1\n", "specification e.spec:1:4: ENDPOINT expected before '1' (ENDPOINT n = packets)");
	error_is("IN ENDPOINT 1 = 1 ENDPOINT 1 = 2\n", "specification e.spec:1:19: this endpoint of IN is given twice");
	error_is("ATTRIBUTES a = 1, 2\n",
	         "specification e.spec:1:12: 'a' has several values outside a LOOP: put it in one");
	error_is("ATTRIBUTES a = 1\nLOOP a = 2\n", "specification e.spec:2:6: the attribute 'a' is given twice");
	error_is("RUN x\nLOOP a = 2\n",
	         "specification e.spec:2:1: a section (IDENT, IN, OUT, ATTRIBUTES, RUN, REPEAT or "
	         "MODULE) expected, not 'LOOP'");
	error_is("ATTRIBUTES a = 1 LOOP { a = 2 }\n", "specification e.spec:1:25: the attribute 'a' is given twice");
	error_is("ATTRIBUTES 1002 = 3\n",
	         "specification e.spec:1:17: SUB expected after an attribute's number (1002 SUB 1 = ...), not '='");
	error_is("ATTRIBUTES a =\n",
	         "specification e.spec:2:1: a value (a number, a name or a string) expected, not 'the end'");
	error_is("RUN ./x {nope}\n",
	         "specification e.spec: the RUN line's {nope} names no attribute (nor rep, in, out, in.N, out.N)");
	error_is("RUN\n", "specification e.spec:1:1: RUN needs a command on its line");
	error_is("REPEAT 0\n", "specification e.spec:1:8: REPEAT n: n from 1 to 100000");
	error_is("MODULE send @ fast\n",
	         "specification e.spec:1:15: MODULE span @ rate: a rate in Hz above 0 expected, not 'fast'");
	error_is("MODULE send 25\n", "specification e.spec:1:13: '@' expected after MODULE's span, not '25'");
	error_is("IDENT NAME = \"x\nIN\n", "specification e.spec:1:14: a string without its closing '\"'");
	error_is("IDENT TYP = LATE\n", "specification e.spec:1:13: TYP = SYNC or TYP = ASYNC n expected, not 'LATE'");
	error_is("ATTRIBUTES LOOP { a = 1 TO 100000 b = 1 TO 3 }\n",
	         "specification e.spec: over 100000 combinations of the attributes");
	error_is("frobnicate\n",
	         "specification e.spec:1:1: a section (IDENT, IN, OUT, ATTRIBUTES, RUN, REPEAT or MODULE) expected, "
	         "not 'frobnicate'");
	error_is("RUN a\nRUN b\n", "specification e.spec:2:1: a second RUN line");
}

TEST(load)
{
	struct tl_spec s;

	CHECK_EQ_INT(tl_spec_load("/nonexistent/x.spec", &s), -1);
	CHECK(strstr(tl_error_msg(), "/nonexistent/x.spec") != NULL);
}

int main(void)
{
	RUN_TESTS(appendix_b, appendix_b_as_printed, grammar_style, combinations, errors, load);
}
