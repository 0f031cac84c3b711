-- Stock per SKU. last_token is the highest fencing token that wrote the row: a lower one is refused.
CREATE TABLE IF NOT EXISTS stock (
    sku        VARCHAR(64) PRIMARY KEY,
    quantity   INT         NOT NULL CHECK (quantity >= 0),
    last_token BIGINT      NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS sale (
    id       BIGINT AUTO_INCREMENT PRIMARY KEY,
    sku      VARCHAR(64) NOT NULL,
    quantity INT         NOT NULL,
    token    BIGINT
);
