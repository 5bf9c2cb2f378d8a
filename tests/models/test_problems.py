"""A field's problem is the API's English sentence, with the code and values the pages
translate it by."""

from __future__ import annotations

import copy
import pickle

from models.problems import ENGLISH, Problem


def test_a_problem_is_its_english_sentence_with_its_code_and_values():
    problem = Problem("too_long", n=30)
    assert problem == "at most 30 characters"
    assert (problem.code, problem.params) == ("too_long", {"n": 30})


def test_a_copied_problem_keeps_its_code_and_values():
    problem = Problem("before_next_month", n="2027-01")
    for again in (copy.deepcopy(problem), pickle.loads(pickle.dumps(problem))):
        assert again == "no earlier than next month (2027-01)"
        assert (again.code, again.params) == ("before_next_month", {"n": "2027-01"})


def test_no_two_codes_say_the_same_sentence():
    """The pages' scripts read a code back from the API's sentence."""
    assert len(set(ENGLISH.values())) == len(ENGLISH)
