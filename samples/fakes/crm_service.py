"""A fake for local testing: the CRM service's cart endpoint, without the service running."""


def fake_crm_service_get_cart_information(tool, input, callback_context):
    customer = input.get("customer_id", "c-1")
    return {"cart_id": customer, "items": [{"sku": "tea", "quantity": 2}, {"sku": "mug", "quantity": 1}]}
