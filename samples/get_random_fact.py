from typing import Optional
# Docstrings in tools are important because they are directly sent to the model as the
# description for the tool. You should think of docstrings as an extension of prompting.
# Clear and descriptive docstrings will yield higher quality tool selection from the model.
def get_random_fact() -> Optional[str]:
    """
    Fetches a random fact from a public API.
    Returns:
        A string containing the fact on success, or None if an error occurs.
    """
    # The 'ces_requests' library is inspired by 'requests', a standard and powerful way in Python
    # to make HTTP network calls to any external API, just like you would with `curl` or a web browser.
    url = "https://uselessfacts.jsph.pl/api/v2/facts/random"
    try:
        # This example calls a public API that is completely open and requires no authentication
        # (like an API key). Many other APIs for services like weather or e-commerce require you
        # to send credentials, often as an API key in the request headers or parameters.
        res = ces_requests.get(url=url, json=request_body, headers=headers)
        # Example POST request
        #res = ces_requests.post(url=url, json=request_body, headers=headers)
        # This is a standard practice with 'ces_requests' to check if the call was successful. It will
        # raise an error for statuses like 404 or 500.
        res.raise_for_status()
        fact_data = res.json()
        return fact_data.get("text")
    except:
        return None
