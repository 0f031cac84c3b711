MERGE INTO stock (sku, quantity) KEY (sku) VALUES ('SKU-1', 100), ('SKU-2', 20);
