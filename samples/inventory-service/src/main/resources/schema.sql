-- Stock per SKU. Its fencing is kept apart, in the fence table distlock creates (distributed_lock_fence).
CREATE TABLE IF NOT EXISTS stock (
    sku        VARCHAR(64) PRIMARY KEY,
    quantity   INT         NOT NULL CHECK (quantity >= 0)
);

CREATE TABLE IF NOT EXISTS sale (
    id       BIGINT AUTO_INCREMENT PRIMARY KEY,
    sku      VARCHAR(64) NOT NULL,
    quantity INT         NOT NULL,
    token    BIGINT
);
