MERGE INTO stock (sku, quantity, last_token) KEY (sku) VALUES ('SKU-1', 100, 0), ('SKU-2', 20, 0);
