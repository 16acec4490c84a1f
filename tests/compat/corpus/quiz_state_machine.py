# args: {"answer": "b"}
# context: {"state": {"quiz": {"index": 1, "score": 1}}}
QUESTIONS = [("2+2?", "a"), ("capital of France?", "b"), ("largest planet?", "c")]


def quiz_state_machine(answer: str) -> dict:
    """Answer the current quiz question."""
    quiz = dict(context.state.get("quiz", {"index": 0, "score": 0}))
    question, correct = QUESTIONS[quiz["index"]]
    right = answer.lower() == correct
    quiz["score"] += int(right)
    quiz["index"] += 1
    done = quiz["index"] >= len(QUESTIONS)
    context.state["quiz"] = quiz
    if done:
        context.state["finished"] = True
    return {"question": question, "right": right, "score": quiz["score"], "done": done}
