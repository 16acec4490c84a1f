from typing import Optional
# Docstrings in tools are important because they are directly
# sent to the model as the description for the tool. You should
# think of docstrings as an extension of prompting. Clear and
# descriptive docstrings will yield higher quality tool
# selection from the model.
def get_last_user_utterance() -> Optional[str]:
    """
    Retrieves the most recent message sent by the user from the conversation history.
    Returns:
        The text of the last user message, or None if no user messages are found.
    """
    # The 'context.user_content' contains the last input data
    # provided by the user.
    # We can filter it to find only the text input from the user.
    user_messages = [
        part["text"] for part in context.user_content["parts"]
        if context.user_content["role"] == "user"
    ]
    if user_messages:
        # The most recent message is the first one in the list.
        return user_messages[0]
    return None
