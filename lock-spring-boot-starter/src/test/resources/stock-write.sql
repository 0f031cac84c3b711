create table stock_write (sku varchar(64) not null);
